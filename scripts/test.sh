#!/usr/bin/env bash
# Sets up, builds and runs every test: a Release build (warnings are errors),
# then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

jobs=$(nproc)
echo "== Release build and tests"
scripts/build.sh release
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== ASan+UBSan build and tests"
scripts/build.sh asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
