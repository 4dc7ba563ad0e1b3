#!/usr/bin/env bash
# Installs collsim from a build folder into a temporary prefix, builds
# tests/install_consumer against it with find_package(collsim), and checks
# that the consumer's report is collsim run's, byte for byte after the
# provenance line; and that the installed binary runs.
# Usage: install_consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
cmake -S "$src/tests/install_consumer" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" > /dev/null
cmake --build "$tmp/build" > /dev/null
scenario="$src/scenarios/default.yaml"
"$tmp/build/consumer" "$scenario" > "$tmp/consumer.csv"
"$tmp/prefix/bin/collsim" run "$scenario" --format csv | tail -n +2 > "$tmp/collsim.csv"
diff "$tmp/collsim.csv" "$tmp/consumer.csv"
test -f "$tmp/prefix/share/doc/collsim/LICENSE"
echo "install: find_package(collsim) builds a consumer whose report is collsim run's"
