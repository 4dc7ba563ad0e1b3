#!/usr/bin/env bash
# Runs every command of tests/golden/commands.txt and compares its output
# with tests/data/golden/NAME.txt byte for byte; then checks that every
# "$ build/collsim ARGS" block of the README or a docs/ page shows a prefix of the golden
# of the same ARGS. On a difference it prints the diff and fails: if the
# change is meant, scripts/update_goldens.sh regenerates the goldens (and
# the README blocks).
# Usage: golden_test.sh COLLSIM SOURCE_DIR [NAME-REGEX]
set -euo pipefail
collsim=$1 src=$2 only=${3:-.}
cd "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source scripts/golden_lib.sh

failed=0 checked=0
while read -r name args; do
  [[ "$name" =~ $only ]] || continue
  golden_output "$collsim" "$args" > "$tmp/$name.txt"
  checked=$((checked + 1))
  if ! cmp -s "$tmp/$name.txt" "tests/data/golden/$name.txt"; then
    echo "GOLDEN $name differs (collsim $args):"
    diff -u "tests/data/golden/$name.txt" "$tmp/$name.txt" | head -40 || true
    failed=1
  fi
done < <(golden_commands)

# The shown outputs of the README and docs/.
if [ "$only" = . ]; then
  python3 scripts/readme_outputs.py check || failed=1
fi
if [ "$failed" -ne 0 ]; then
  echo "golden: differences found; if they are meant: scripts/update_goldens.sh"
  exit 1
fi
echo "golden: $checked outputs match, and the README and docs/ show them"
