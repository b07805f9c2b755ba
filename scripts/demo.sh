#!/usr/bin/env bash
# The main job: build mbs and run the demo simulation (a triple pendulum printed as a table).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/examples/triple_pendulum "$@"
