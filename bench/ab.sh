#!/usr/bin/env bash
# Time two builds of mbs alternately in one process (A/B): the ratio of their CPU times per
# body on the benchmark models, robust on a machine that other work loads (both builds see
# the same load; absolute figures drift by 20 % and more there).
# Usage: bench/ab.sh BUILD_A BUILD_B [FUNCS] [REPS]     e.g. bench/ab.sh ../old/build build
# Each BUILD is a configured and built mbs build directory (its libmbs.a is used, with the
# LAPACK, CVODE and libxml2 of a default build); FUNCS as in bench/ab_compare.c.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,7p "$0"; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
libs="$(pkg-config --libs openblas lapacke) -lsundials_cvodes -lsundials_nvecserial \
  -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lxml2 -lm"
i=0
for b in "$1" "$2"; do
  [ -f "$b/libmbs.a" ] || { echo "no $b/libmbs.a" >&2; exit 2; }
  # shellcheck disable=SC2086
  cc -O2 -fPIC -shared -fvisibility=hidden -I "$here" -I "$here/../include" \
    "$here/ab_runner.c" "$here/bench_common.c" -Wl,--whole-archive "$b/libmbs.a" \
    -Wl,--no-whole-archive -Wl,-Bsymbolic $libs -o "$out/side$i.so"
  i=$((i + 1))
done
cc -O2 "$here/ab_compare.c" -o "$out/ab_compare" -ldl
echo "A = $1, B = $2; load average $(cut -d' ' -f1 /proc/loadavg) at start"
"$out/ab_compare" "$out/side0.so" "$out/side1.so" "${3:-arc}" "${4:-40}"
