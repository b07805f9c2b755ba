#!/usr/bin/env bash
# Builds mbs with AddressSanitizer + UndefinedBehaviorSanitizer in ./build-sanitize and runs
# every test that does not replace malloc itself (suite 'alloc' counts allocations instead).
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh || exit 1
if [ ! -f build-sanitize/build.ninja ]; then
  meson setup build-sanitize -Db_sanitize=address,undefined -Db_lundef=false -Dbench=false \
    >/dev/null || exit 1
fi
ninja -C build-sanitize >/dev/null || exit 1
export LSAN_OPTIONS="suppressions=$PWD/tests/support/lsan.supp"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS="detect_leaks=1"
meson test -C build-sanitize --print-errorlogs --num-processes 2 --no-suite alloc
