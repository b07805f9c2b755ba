#!/usr/bin/env bash
# The library and its unit tests cross-built for AArch64 (Debian's gcc-aarch64-linux-gnu, the
# arm64 packages of the dependencies through multiarch, meson cross file
# cross/aarch64-linux-gnu.ini) in ./build-aarch64 and run under qemu-user (qemu-user-static):
# the tests of the dynamics and of the derivatives with the NEON variant of the derivative
# passes (the default there) and again with MBS_SIMD=scalar (the *_scalar entries, suite
# simd); then tests/embedded/check_embedded.c with each variant must print the same bits as on
# this machine (./build, made by scripts/build.sh). Installs what is missing (root or sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "aarch64: adding the arm64 architecture to dpkg (multiarch)" >&2
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -qq
fi
pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static libcmocka-dev:arm64
      libxml2-dev:arm64 libzip-dev:arm64 libopenblas-dev:arm64 liblapacke-dev:arm64)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "aarch64: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
if [ ! -f build-aarch64/build.ninja ]; then
  # -Dcvode=disabled: Debian 12's libsundials-dev:arm64 pulls MPI packages that cannot be
  # installed beside the amd64 ones; -Dccd=disabled: the suites below have no contact
  meson setup build-aarch64 --cross-file cross/aarch64-linux-gnu.ini -Dcvode=disabled -Dccd=disabled \
    -Dbench=false >/dev/null
fi
# The suites that run no host program (mbs-sim, a host compiler for generated code, python)
# and need no CVODE (not in this build).
tests=(joints dynamics mass_matrix kernels forces planar derivatives world_aba
       linearize simd)
ninja -C build-aarch64 "${tests[@]/#/tests/test_}" >/dev/null
# OpenBLAS's thread pool, started when the library loads, spins under qemu-user (a test that
# takes 0.2 s ran minutes); the library itself calls it single-threaded
export OPENBLAS_NUM_THREADS=1
meson test -C build-aarch64 --no-rebuild --print-errorlogs --num-processes 2 "${tests[@]}" \
  derivatives_scalar world_aba_scalar simd_scalar
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src=tests/embedded/check_embedded.c
aarch64-linux-gnu-gcc -std=c99 -O2 -Wall -Wextra -Werror -Iinclude "$src" \
  build-aarch64/libmbs.a -llapacke -lopenblas -lxml2 -lm -o "$out/a64"
cc -std=c99 -O2 -Wall -Wextra -Werror -Iinclude "$src" build/libmbs.a \
  $(pkg-config --libs openblas lapacke ccd) -lsundials_cvodes -lsundials_nvecserial \
  -lsundials_sunmatrixdense -lsundials_sunlinsoldense -lxml2 -lm -o "$out/host"
# the number lines alone (that build has no CVODE: its check of the CVODE stepper fails)
{ "$out/host" || true; } | grep -E '^(qacc|M|q|tau|D) ' > "$out/host.num"
for v in neon scalar; do
  { MBS_SIMD=$v qemu-aarch64-static -L /usr/aarch64-linux-gnu "$out/a64" || true; } \
    | grep -E '^(qacc|M|q|tau|D) ' > "$out/$v.num"
  if ! cmp -s "$out/$v.num" "$out/host.num"; then
    echo "aarch64 ($v) and this machine differ:"; diff "$out/$v.num" "$out/host.num" | head; exit 1
  fi
done
echo "aarch64: the tests pass under qemu (NEON and scalar variants); dynamics, derivatives and" \
  "RK4 bitwise equal to this machine's ($(wc -l < "$out/host.num") values)"
