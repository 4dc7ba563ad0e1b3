#!/usr/bin/env bash
# Fuzzes collsim's input loaders (tests/fuzz/loaders_fuzz.cpp) with libFuzzer.
#   scripts/fuzz.sh [SECONDS]     default 60; needs clang++ (skipped without it)
# The corpus starts from every shipped YAML and env file and grows in
# build-asan/corpus/ (kept between runs); a crash leaves its input in
# build-asan/ as crash-* and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found, skipped (apt-get install clang)"
  exit 0
fi
scripts/build.sh fuzz
corpus=build-asan/corpus
seeds=build-asan/seeds
mkdir -p "$corpus" "$seeds"
find configs scenarios tests/data -name '*.yaml' -o -name '*.sh' | while read -r f; do
  cp "$f" "$seeds/$(echo "$f" | tr / _)"
done
cd build-asan
# -rss_limit_mb: a loader that grows without bound is a finding too.
tests/fuzz/collsim_fuzz_loaders -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -print_final_stats=1 "$(basename "$corpus")" "$(basename "$seeds")" 2>&1 | tail -n 12
