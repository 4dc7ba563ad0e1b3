#!/usr/bin/env bash
# Regenerates every golden output (tests/data/golden/, from
# tests/golden/commands.txt), the selector baseline, and the outputs the
# README and docs/ pages show (each "$ build/collsim ARGS" block keeps its length), with
# the Release build. Read the diff before committing: every changed line is
# a changed result.
#   scripts/update_goldens.sh [NAME-REGEX]
set -euo pipefail
cd "$(dirname "$0")/.."
only=${1:-.}
scripts/build.sh release > /dev/null
collsim=build/collsim
source scripts/golden_lib.sh

if [[ "selector-baseline" =~ $only ]]; then
  "$collsim" selector check --rules configs/selector/hccl-910b.yaml --grid scenarios/selector-grid.yaml \
    --baseline scenarios/selector-baseline-hccl-910b.json --update-baseline > /dev/null
fi
mkdir -p tests/data/golden
while read -r name args; do
  [[ "$name" =~ $only ]] || continue
  golden_output "$collsim" "$args" > "tests/data/golden/$name.txt"
  echo "golden $name"
done < <(golden_commands)

# README and docs/ blocks: the same shape, now from the goldens.
python3 scripts/readme_outputs.py update
echo "README and docs/ blocks regenerated; review: git diff"
