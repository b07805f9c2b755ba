#!/usr/bin/env bash
# libFuzzer harnesses (tests/fuzz/) on a clang build of libmbs with ASan + UBSan in
# ./build-fuzz: fuzz_api (random API call sequences) and fuzz_load (the model-file loader),
# each run for SECONDS (default 60) from a copy of its checked-in seed corpus. CI runs it
# with the default; run it for hours by hand with a larger value. Prints each harness's
# executions and coverage; exit status 1 when a harness finds a broken contract or a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bash scripts/install-deps.sh
missing=()
for p in clang libclang-rt-14-dev; do
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
libs="$(pkg-config --libs libxml-2.0 openblas lapacke) -lsundials_cvodes -lsundials_nvecserial -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm -lpthread"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for h in api load; do
  clang -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude \
    "tests/fuzz/fuzz_$h.c" build-fuzz/libmbs.a $libs -o "$work/fuzz_$h"
  mkdir -p "$work/corpus_$h"
  cp tests/fuzz/corpus_$h/* "$work/corpus_$h/"
  if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
       "$work/fuzz_$h" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
       -artifact_prefix="$work/" "$work/corpus_$h" > "$work/$h.log" 2>&1; then
    echo "fuzz_$h: FAILED"; tail -n 40 "$work/$h.log"; status=1
  fi
  summary=$(grep -E '^#[0-9]+' "$work/$h.log" | tail -n 1)
  echo "fuzz_$h: ${seconds}s: $summary"
done
[ $status -eq 0 ] && echo "fuzz: ok"
exit $status
