#!/usr/bin/env bash
# Sets up, builds and runs every test: a Release build (warnings are errors),
# the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, the
# tests that run on several threads under ThreadSanitizer, and a short
# fuzzing run of the input loaders (when clang++ is there).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# Runs ctest with the given arguments, keeping its summary for the total.
run_ctest() { ctest --output-on-failure -j "$jobs" "$@" | tee -a "$log"; }

phase() { echo "== $1 (at $((SECONDS / 60)) min $((SECONDS % 60)) s)"; }
phase "Release build and tests"
scripts/build.sh release
run_ctest --test-dir build

phase "ASan+UBSan build and tests"
scripts/build.sh asan
# The interrupted-study test runs a whole capacity plan twice, and the sweep
# validations calibrate against whole measured curves: Release covers them
# (calibrate's code runs here in "calibrate fits only what it is asked to");
# the published runs simulate up to 512 devices' steps (the compute model's
# code runs here in its own tests); the step cost's test runs two whole
# calibrations (108 s under ASan; the fit's code runs here in the others).
# calibrate's command-line tests each run whole fits (10-28 s under ASan):
# "calibrate fits only what it is asked to" keeps its code here; and the
# plan from C++ is the plan command's code, which its own tests run here.
slow_under_asan="continues an interrupted study|node sweeps|published runs|cost per pipeline step"
slow_under_asan+="|progress line with the time left|--out is the report|fits the network latency"
slow_under_asan+="|finds the switch point|priors hold what the curve|a plan ranked from C"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  run_ctest --test-dir build-asan -E "$slow_under_asan"

# Its test binary holds only the files of these tests (tests/CMakeLists.txt: keep the two together).
phase "ThreadSanitizer build: the threads transport, parallel studies and comparisons, selector check -j 2"
scripts/build.sh tsan
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 run_ctest --test-dir build-tsan --no-tests=error \
  -R "threads transport|Compute operation|reach a training study|failing study point|selector check|selector_check|two-node sweeps"

phase "Fuzzing the input loaders (60 s; longer: scripts/fuzz.sh SECONDS)"
scripts/fuzz.sh 60

# One closing line over the three ctest runs (set -e has stopped us on any failure).
total=$(sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
echo "total: $total passed, 0 failed ($((SECONDS / 60)) min $((SECONDS % 60)) s)"
