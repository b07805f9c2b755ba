#!/usr/bin/env bash
# The main job: build mbs-sim (and only what it needs) and run its demo (every model shipped
# with mbs, models/, simulated with its default settings, one summary line each). Arguments go
# to mbs-sim, e.g.
#   ./scripts/demo.sh run robot_r3 --plot r3.svg
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh tools/sim/mbs-sim
exec ./build/tools/sim/mbs-sim "$@"
