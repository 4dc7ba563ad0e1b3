#!/usr/bin/env bash
# Sets up, builds and runs every test: a Release build (warnings are errors),
# the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, the
# tests that run on several threads under ThreadSanitizer, and a short
# fuzzing run of the input loaders (when clang++ is there).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

jobs=$(nproc)
echo "== Release build and tests"
scripts/build.sh release
ctest --test-dir build --output-on-failure -j "$jobs"

echo "== ASan+UBSan build and tests"
scripts/build.sh asan
# The interrupted-study test runs a whole capacity plan twice: Release covers it.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -E "continues an interrupted study"

echo "== ThreadSanitizer build: the threads transport, parallel studies, selector check -j 2"
scripts/build.sh tsan
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build-tsan --output-on-failure -j "$jobs" \
  -R "threads transport|Compute operation|reach a training study|failing study point|selector check|selector_check"

echo "== Fuzzing the input loaders (60 s; longer: scripts/fuzz.sh SECONDS)"
scripts/fuzz.sh 60
