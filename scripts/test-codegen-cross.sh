#!/usr/bin/env bash
# mbs-codegen on real robot descriptions and on closed-loop models, compiled for a
# microcontroller: the generated C of each model built with Debian's arm-none-eabi-gcc for a
# Cortex-M7 with a double-precision FPU, warnings as errors; prints code size and stack use
# per function (for loop models also the closure) and checks that the object needs nothing
# but libm (and the memcpy / memset that GCC may make of a copy loop: it requires every
# environment, freestanding ones included, to provide memcpy, memmove, memset and memcmp).
# Installs gcc-arm-none-eabi and its newlib headers if missing.
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
# Stack use of a function of the object whose .su file is $su ("-" when absent).
st() { awk -v f=":$1\t" 'index($0, f) {print $(NF-1); found = 1} END {if (!found) print "-"}' "$su"; }
# Columns: code bytes; stack bytes of forward dynamics (with loops: its _lambda form, which
# the other calls), inverse dynamics, the RK4 step, and with loops the closure (P_close's
# P_closure) and the kept rows it evaluates, each without the functions it calls unless the
# compiler inlined them ("-": inlined or absent).
printf '%-22s %8s %9s %9s %9s %9s %9s\n' model "code B" "fd stack" "id stack" "rk4 stack" \
  "closure" "rows"
for model in tests/data/fmu_double_pendulum.urdf tests/data/robots/arm6.urdf \
             tests/data/robots/quadruped.urdf models/fourbar_analytic.xml models/engine_v6.xml; do
  name=$(basename "${model%.*}")
  ./build/tools/codegen/mbs-codegen "$model" -o "$out/$name.c" --prefix m >/dev/null
  arm-none-eabi-gcc $flags -c "$out/$name.c" -o "$out/$name.o"
  extra=$(arm-none-eabi-nm -u "$out/$name.o" | awk '{print $2}' | grep -vxE 'sin|cos|sincos|sqrt|fmax|fabs|memcpy|memset|memmove|memcmp' || true)
  if [ -n "$extra" ]; then echo "codegen cross: $name needs more than libm: $extra"; exit 1; fi
  code=$(arm-none-eabi-size "$out/$name.o" | awk 'NR == 2 {print $1}')
  su=$out/$name.su
  fd=$(st m_forward_dynamics_lambda)
  [ "$fd" = "-" ] && fd=$(st m_forward_dynamics)
  printf '%-22s %8s %9s %9s %9s %9s %9s\n' "$name" "$code" "$fd" "$(st m_inverse_dynamics)" \
    "$(st m_rk4_step)" "$(st m_closure)" "$(st m_rows)"
done
echo "codegen cross: ok"
