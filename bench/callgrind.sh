#!/usr/bin/env bash
# Instruction counts of mbs_forward_dynamics (ABA), mbs_inverse_dynamics (RNEA) and
# mbs_mass_matrix (CRBA) per call and per moving body, under callgrind: independent of the
# load of the machine. Each figure is N calls of bench_count over its 64 seeded states
# (state copy included, as in bench_dynamics).
# Usage: bench/callgrind.sh [BUILD_DIR] [N] [planar]   (default build, 200 calls)
#   planar: forward dynamics of bench_planar's planar chains, planar path and 3-D path
#           (instructions per call and per body), and one RK4 step of 1 ms from the same
#           states (instructions per stage and body: 4 forward dynamics and the stepper)
set -euo pipefail
build=${1:-build}
n=${2:-200}
exe="$build/bench/bench_count"
[ -x "$exe" ] || { echo "no $exe (ninja -C $build first)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Instructions of `bench_count MODEL FUNC CALLS` under callgrind, whole run of count_loop.
count() {
  valgrind --tool=callgrind --toggle-collect=count_loop \
    --callgrind-out-file="$out/cg" "$exe" "$1" "$2" "$3" >/dev/null 2>&1
  awk '/^(summary|totals):/ {print $2; exit}' "$out/cg"
}

if [ "${3:-}" = planar ]; then
  printf '%-12s %6s | %12s %8s | %12s %8s | %7s | %9s %9s %7s\n' model bodies "planar Ir" /body \
    "3-D Ir" /body ratio "RK4 plan" "RK4 3-D" ratio
  for nb in 7 30 100 1000; do
    calls=$n
    [ "$nb" = 1000 ] && calls=$(( (n + 9) / 10 ))
    ip=$(count "planar$nb" aba "$calls")
    i3=$(count "planar$nb-3d" aba "$calls")
    sp=$(count "planar$nb" step "$calls")
    s3=$(count "planar$nb-3d" step "$calls")
    awk -v p="$ip" -v t="$i3" -v sp="$sp" -v s3="$s3" -v c="$calls" -v nb="$nb" 'BEGIN {
      printf "%-12s %6d | %12.0f %8.0f | %12.0f %8.0f | %6.2fx | %9.0f %9.0f %6.2fx\n",
        "planar" nb, nb, p / c, p / c / nb, t / c, t / c / nb, t / p, sp / c / 4 / nb,
        s3 / c / 4 / nb, s3 / sp }'
  done
  exit 0
fi

printf '%-10s %6s | %12s %8s | %12s %8s | %12s %8s\n' model bodies "ABA Ir" /body \
  "RNEA Ir" /body "CRBA Ir" /body
for model in chain7 chain30 chain100 chain1000 humanoid; do
  case $model in chain*) nb=${model#chain} ;; humanoid) nb=30 ;; esac
  row=$(printf '%-10s %6d' "$model" "$nb")
  for f in aba rnea crba; do
    calls=$n
    [ "$model" = chain1000 ] && [ "$f" = crba ] && calls=$(( (n + 9) / 10 ))
    ir=$(count "$model" "$f" "$calls")
    row+=$(awk -v ir="$ir" -v c="$calls" -v nb="$nb" \
      'BEGIN { printf " | %12.0f %8.0f", ir / c, ir / c / nb }')
  done
  echo "$row"
done
