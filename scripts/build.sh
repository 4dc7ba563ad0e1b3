#!/usr/bin/env bash
# Configures and builds one flavour of collsim.
#   scripts/build.sh            Release build in build/ (build/collsim)
#   scripts/build.sh asan       ASan+UBSan build in build-asan/
set -euo pipefail
cd "$(dirname "$0")/.."

flavour="${1:-release}"
case "$flavour" in
  release) dir=build; flags=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan)    dir=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOLLSIM_SANITIZE=ON) ;;
  *) echo "usage: scripts/build.sh [release|asan]" >&2; exit 2 ;;
esac

cmake -S . -B "$dir" -G Ninja -DCOLLSIM_WERROR=ON "${flags[@]}" >/dev/null
ninja -C "$dir"
