#!/usr/bin/env bash
# Builds mbs with ThreadSanitizer in ./build-tsan and runs the tests of suite 'threads': one
# model shared by several threads (test_threads, and the batch runs' pool in test_batch) must
# have no data race.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1
if [ ! -f build-tsan/build.ninja ]; then
  meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dbench=false >/dev/null || exit 1
fi
ninja -C build-tsan tests/test_threads tests/test_batch >/dev/null || exit 1
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"
meson test -C build-tsan --print-errorlogs --no-rebuild --suite threads
