#!/usr/bin/env bash
# libFuzzer harnesses (tests/fuzz/) on a clang build of libmbs with ASan + UBSan in
# ./build-fuzz: fuzz_api (random API call sequences), fuzz_load (the model-file loader) and
# fuzz_fmu (FMI 2.0 call sequences on the FMU runtime of tools/fmu/, linked in), each run
# for SECONDS (default 60) from a copy of its checked-in seed corpus. CI runs it with the
# default; run it for hours by hand with a larger value and the variables below. Prints
# each harness's executions and coverage, then the per-folder line coverage of src/ and
# tools/fmu/ by the checked-in corpora; exit status 1 when a harness finds a broken
# contract or a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# a fixed seed by default, so that CI explores the same inputs from the same corpus each run
# (a finding is then reproducible); MBS_FUZZ_SEED=0 lets libFuzzer pick one
seed=${MBS_FUZZ_SEED:-1}
# with that seed, at most this many executions per harness (fewer when SECONDS runs out):
# counts checked clean before they were set here, so that CI replays a known-good prefix of the
# search and a new finding comes from a change, not from the machine being faster; a longer
# search by hand: MBS_FUZZ_RUNS=-1 (no cap) with a larger SECONDS and MBS_FUZZ_SEED=0
declare -A runs=([api]=10000 [load]=200000 [fmu]=4500)
bash scripts/install-deps.sh
missing=()
for p in clang libclang-rt-14-dev llvm; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang meson setup build-fuzz -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=fuzzer-no-link -Dtests=false -Dbench=false -Dwerror=false >/dev/null
fi
ninja -C build-fuzz libmbs.a >/dev/null
libs="$(pkg-config --libs libxml-2.0 openblas lapacke ccd) -lsundials_cvodes -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm -lpthread"
# fuzz_fmu compiles the runtime's sources with it (the .so of an FMU is these files + libmbs)
fmu_src="tools/fmu/fmu_runtime.c tools/fmu/fmu_access.c tools/fmu/fmu_uri.c tools/fmu/fmu_vars.c
  tools/fmu/fmu_guid.c tools/elements/tool_elements.c"
harness_src() { # the sources and include folders of harness $1 besides libmbs
  echo "tests/fuzz/fuzz_$1.c"
  [ "$1" = fmu ] && echo "-Isrc -Itools/fmu -Itools/elements $(pkg-config --cflags libxml-2.0) $fmu_src"
  return 0
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for h in api load fmu; do
  clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude \
    $(harness_src $h) build-fuzz/libmbs.a $libs -o "$work/fuzz_$h"
  mkdir -p "$work/corpus_$h"
  cp tests/fuzz/corpus_$h/* "$work/corpus_$h/"
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
       "$work/fuzz_$h" -seed="$seed" -runs="${MBS_FUZZ_RUNS:-${runs[$h]}}" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$work/" "$work/corpus_$h" > "$work/$h.log" 2>&1; then
    echo "fuzz_$h: FAILED"; tail -n 40 "$work/$h.log"; status=1
  fi
  summary=$(grep -E '^#[0-9]+' "$work/$h.log" | tail -n 1 || true) # none: failed at once
  echo "fuzz_$h: ${seconds}s: $summary"
done

# Per-folder line coverage of src/ and tools/fmu/ by the checked-in corpora replayed once (clang's
# source-based coverage, a build of its own in ./build-fuzz-cov): a fixed set of inputs, so
# the figures compare between commits.
if [ ! -f build-fuzz-cov/build.ninja ]; then
  # meson's compiler checks run instrumented programs: their profiles go to $work, not here
  LLVM_PROFILE_FILE="$work/setup_%p.profraw" CC=clang meson setup build-fuzz-cov \
    -Dc_args="-fprofile-instr-generate -fcoverage-mapping" \
    -Dtests=false -Dbench=false -Dwerror=false >/dev/null
fi
ninja -C build-fuzz-cov libmbs.a >/dev/null
for h in api load fmu; do
  clang -O1 -g -fsanitize=fuzzer -fprofile-instr-generate -fcoverage-mapping -Iinclude \
    $(harness_src $h) build-fuzz-cov/libmbs.a $libs -o "$work/cov_$h"
  LLVM_PROFILE_FILE="$work/cov_$h.profraw" "$work/cov_$h" -runs=0 "tests/fuzz/corpus_$h" \
    > /dev/null 2>&1 || true
done
llvm-profdata merge -o "$work/cov.profdata" "$work"/cov_*.profraw
llvm-cov export -summary-only -instr-profile="$work/cov.profdata" "$work/cov_api" \
  -object "$work/cov_load" -object "$work/cov_fmu" | python3 -c '
import json, sys, collections
lines = collections.defaultdict(lambda: [0, 0])
for f in json.load(sys.stdin)["data"][0]["files"]:
    name = f["filename"]
    if "/tools/fmu/" in name: keys = ("tools/fmu",)
    elif "/src/" in name: keys = (name.split("/src/", 1)[1].split("/")[0], "src (all)")
    else: continue
    for key in keys:
        lines[key][0] += f["summary"]["lines"]["covered"]
        lines[key][1] += f["summary"]["lines"]["count"]
print("line coverage of src/ and tools/fmu/ by the checked-in corpora (fuzz_api + fuzz_load + fuzz_fmu):")
for k, (c, n) in sorted(lines.items()):
    print(f"  {k:12s} {100.0 * c / n:5.1f} %  ({c} of {n} lines)")'
[ $status -eq 0 ] && echo "fuzz: ok"
exit $status
