#!/usr/bin/env bash
# Builds mbs and runs every test; prints "N passed, N failed" last.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh || exit 1
meson test -C build --print-errorlogs --num-processes 2
status=$?
log=build/meson-logs/testlog.json
if [ -f "$log" ]; then
  python3 - "$log" <<'PY' || true
import json, sys
res = [json.loads(l)["result"] for l in open(sys.argv[1]) if l.strip()]
ok = sum(r == "OK" for r in res); skip = sum(r == "SKIP" for r in res)
print(f"tests: {ok} passed, {len(res) - ok - skip} failed, {skip} skipped")
PY
fi
exit $status
