#!/usr/bin/env bash
# The embedded build: mbs configured with -Dlapack=disabled -Dcvode=disabled in
# ./build-embedded links with libm alone (checked on the shared library and on the symbols the
# static one needs); tests/embedded/check_embedded.c linked with it and with the full build
# (./build, made by scripts/build.sh) must print the same tree dynamics and RK4 trajectory bit
# for bit, and the embedded one must refuse CVODE and loops with MBS_ERR_STATE.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
if [ ! -f build-embedded/build.ninja ]; then
  meson setup build-embedded -Dlapack=disabled -Dcvode=disabled -Dxml=disabled -Dccd=disabled -Dtests=false -Dbench=false \
    >/dev/null
fi
ninja -C build-embedded >/dev/null
deps=$(ldd build-embedded/libmbs.so.0 | awk '{print $1}' | grep -vE '^(linux-vdso|libm\.so|libc\.so|/lib64/ld-linux)' || true)
if [ -n "$deps" ]; then echo "embedded libmbs.so needs more than libm and libc: $deps"; exit 1; fi
defined=$(nm --defined-only build-embedded/libmbs.a | awk 'NF == 3 {print $3}' | sort -u)
foreign=$(nm -u build-embedded/libmbs.a | awk '{print $2}' | sort -u | comm -23 - <(echo "$defined") \
  | grep -iE 'lapack|cblas|openblas|cvode|sundials|^N_V|^SUN' || true)
if [ -n "$foreign" ]; then echo "embedded libmbs.a references: $foreign"; exit 1; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=tests/embedded/check_embedded.c
cc -std=c99 -O2 -Wall -Wextra -Werror -Iinclude "$src" build-embedded/libmbs.a -lm -o "$out/embedded"
cc -std=c99 -O2 -Wall -Wextra -Werror -Iinclude "$src" build/libmbs.a \
  $(pkg-config --libs openblas lapacke ccd) -lsundials_cvodes -lsundials_nvecserial \
  -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lm -o "$out/full"
"$out/embedded" embedded > "$out/embedded.txt"
"$out/full" > "$out/full.txt"
grep -E '^(qacc|M|q|tau|D) ' "$out/embedded.txt" > "$out/e.num"
grep -E '^(qacc|M|q|tau|D) ' "$out/full.txt" > "$out/f.num"
if ! cmp -s "$out/e.num" "$out/f.num"; then
  echo "embedded and full builds differ:"; diff "$out/e.num" "$out/f.num" | head; exit 1
fi
echo "embedded build: libm only; dynamics, mass matrix, 1000 RK4 steps, derivatives, A, the actuated inverse dynamics and RK4 with a user state bitwise equal to the full build ($(wc -l < "$out/e.num") values)"
grep -E '^loop:' "$out/embedded.txt"
tail -n 1 "$out/embedded.txt"
