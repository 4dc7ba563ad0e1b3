#!/usr/bin/env bash
# scripts/check_layers.sh passes on the tree and fails on an injected upward
# include (sim/core including the command line), naming the file and layers.
# Usage: check_layers_test.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$src/scripts/check_layers.sh" "$src"
mkdir -p "$tmp/scripts"
cp -r "$src/sim" "$src/algorithms" "$src/topologies" "$tmp/"
cp "$src/scripts/check_layers.sh" "$tmp/scripts/"
echo '#include "sim/cli/cli.h"' >> "$tmp/sim/core/units.h"
echo '#include "sim/scenario/scenario.h"' >> "$tmp/sim/network/routing.cpp"
if "$tmp/scripts/check_layers.sh" "$tmp" > "$tmp/out.txt"; then
  echo "check_layers accepted an upward include"; exit 1
fi
grep -q "sim/core/units.h includes sim/cli/cli.h: sim/core may not look up to sim/cli" "$tmp/out.txt"
grep -q "sim/network/routing.cpp includes sim/scenario/scenario.h: sim/network may not look up to sim/scenario" "$tmp/out.txt"
echo "check_layers: refuses the injected upward includes"
