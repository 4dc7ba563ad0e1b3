#!/usr/bin/env bash
# Sets up, builds and runs collsim. Without arguments: the embedded default
# scenario (the seed article's 8-card HCCS ring). Arguments go to `collsim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh release >/dev/null
exec build/collsim run "$@"
