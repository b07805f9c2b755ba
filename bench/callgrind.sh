#!/usr/bin/env bash
# Instruction counts of mbs_forward_dynamics (ABA), mbs_inverse_dynamics (RNEA) and
# mbs_mass_matrix (CRBA) per call and per moving body, under callgrind: independent of the
# load of the machine. Each figure is N calls of bench_count over its 64 seeded states
# (state copy included, as in bench_dynamics).
# Usage: bench/callgrind.sh [BUILD_DIR] [N]      (default build, 200 calls)
set -euo pipefail
build=${1:-build}
n=${2:-200}
exe="$build/bench/bench_count"
[ -x "$exe" ] || { echo "no $exe (ninja -C $build first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-10s %6s | %12s %8s | %12s %8s | %12s %8s\n' model bodies "ABA Ir" /body \
  "RNEA Ir" /body "CRBA Ir" /body
for model in chain7 chain30 chain100 chain1000 humanoid; do
  case $model in chain*) nb=${model#chain} ;; humanoid) nb=30 ;; esac
  row=$(printf '%-10s %6d' "$model" "$nb")
  for f in aba rnea crba; do
    calls=$n
    [ "$model" = chain1000 ] && [ "$f" = crba ] && calls=$(( (n + 9) / 10 ))
    valgrind --tool=callgrind --toggle-collect=count_loop \
      --callgrind-out-file="$out/cg" "$exe" "$model" "$f" "$calls" >/dev/null 2>&1
    ir=$(awk '/^(summary|totals):/ {print $2; exit}' "$out/cg")
    row+=$(awk -v ir="$ir" -v c="$calls" -v nb="$nb" \
      'BEGIN { printf " | %12.0f %8.0f", ir / c, ir / c / nb }')
  done
  echo "$row"
done
