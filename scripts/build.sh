#!/usr/bin/env bash
# Configures (once) and builds mbs in ./build after installing missing packages. Arguments
# are ninja targets (default: everything), e.g. `scripts/build.sh tools/sim/mbs-sim`.
set -euo pipefail
cd "$(dirname "$0")/.."
# a build configured with -Dcvode=disabled does not need SUNDIALS installed
opts=build/meson-info/intro-buildoptions.json
deps=()
if [ -f "$opts" ] && python3 -c 'import json, sys
sys.exit(not any(o["name"] == "cvode" and o["value"] == "disabled" for o in json.load(open(sys.argv[1]))))' "$opts"; then
  deps=(--no-cvode)
fi
bash scripts/install-deps.sh "${deps[@]}"
if [ ! -f build/build.ninja ]; then
  meson setup build >/dev/null
fi
ninja -C build "$@" >/dev/null
