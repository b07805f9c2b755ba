#!/usr/bin/env bash
# mbs-codegen on real robot descriptions, compiled for a microcontroller: the generated C
# of each model built with Debian's arm-none-eabi-gcc for a Cortex-M7 with a double-precision
# FPU, warnings as errors; prints code size and stack use per function and checks that the
# object needs nothing but libm. Installs gcc-arm-none-eabi and its newlib headers if missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
missing=()
for p in gcc-arm-none-eabi libnewlib-arm-none-eabi; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "codegen cross: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags="-std=c99 -Wall -Wextra -Werror -O2 -mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard -fstack-usage"
printf '%-22s %8s %10s %10s %10s\n' model "code B" "fd stack" "id stack" "rk4 stack"
for model in tests/data/fmu_double_pendulum.urdf tests/data/robots/arm6.urdf tests/data/robots/quadruped.urdf; do
  name=$(basename "$model" .urdf)
  ./build/tools/codegen/mbs-codegen "$model" -o "$out/$name.c" --prefix m >/dev/null
  arm-none-eabi-gcc $flags -c "$out/$name.c" -o "$out/$name.o"
  extra=$(arm-none-eabi-nm -u "$out/$name.o" | awk '{print $2}' | grep -vxE 'sin|cos|sincos|sqrt|fmax' || true)
  if [ -n "$extra" ]; then echo "codegen cross: $name needs more than libm: $extra"; exit 1; fi
  code=$(arm-none-eabi-size "$out/$name.o" | awk 'NR == 2 {print $1}')
  su=$out/$name.su
  st() { awk -v f="$1" '$0 ~ f {print $(NF-1)}' "$su"; }
  printf '%-22s %8s %10s %10s %10s\n' "$name" "$code" "$(st m_forward_dynamics)" "$(st m_inverse_dynamics)" "$(st m_rk4_step)"
done
echo "codegen cross: ok"
