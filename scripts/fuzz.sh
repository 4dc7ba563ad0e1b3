#!/usr/bin/env bash
# Fuzzes collsim's input loaders (tests/fuzz/loaders_fuzz.cpp) with libFuzzer.
#   scripts/fuzz.sh [SECONDS]     default 60; needs clang++ (skipped without it)
# The corpus starts from every shipped YAML and env file, the measured logs
# and profiles, an NPKit trace, and a real study's journal (tests/data/journal), and grows in
# build-asan/corpus/ (kept between runs); a crash leaves its input in
# build-asan/ as crash-* (or timeout-*, oom-*), prints it and fails the script.
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
find configs scenarios tests/data -name '*.yaml' -o -name '*.sh' -o -name '*.txt' -path '*measured*' \
  -o -path '*profiles*' -name '*.json' -o -path '*npkit*' -name '*.json' -o -path '*profiles*' -name '*.csv' -o -path '*schedules*' -name '*.json' -o -name '*.partial' | while read -r f; do
  cp "$f" "$seeds/$(echo "$f" | tr / _)"
done
cd build-asan
rm -f crash-* timeout-* oom-* leak-* slow-unit-*
# -rss_limit_mb: a loader that grows without bound is a finding too.
status=0
tests/fuzz/collsim_fuzz_loaders -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
  -print_final_stats=1 "$(basename "$corpus")" "$(basename "$seeds")" > fuzz.log 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  # A finding: where it happened and the input itself (a CI log is all a
  # reader of a failed run gets).
  grep -E "ERROR|SUMMARY|^ +#[0-9]+ .* in collsim::" fuzz.log | head -n 40 || true
  for f in crash-* timeout-* oom-* leak-*; do
    [ -e "$f" ] || continue
    echo "== fuzz: the input, build-asan/$f ($(wc -c < "$f") bytes), first 60 lines:"
    head -n 60 "$f" | cat -v
  done
  exit "$status"
fi
tail -n 6 fuzz.log
