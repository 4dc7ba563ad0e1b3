#!/usr/bin/env bash
# Checks that every layer includes only itself and the layers below it.
#   scripts/check_layers.sh [ROOT]     exit 1 and one line per upward include
#
# The layers, from the bottom (docs/development.md, "Layout and dependencies"):
layers=(
  algorithms          # schedules, the checker, the real transports: nothing of sim/
  sim/core            # units, the event engine, input errors
  topologies          # cluster builders
  sim/trace           # the trace sink and recorder
  sim/network         # the fast and packet-level network models
  sim/executor        # replays a schedule on a network
  sim/run             # one simulated collective; algorithm names; work estimates
  sim/workload        # training steps
  sim/config          # reading YAML and input files: clusters, RoCE, models, training
  sim/selector        # selector rules, grids, scores, baselines
  sim/scenario        # scenarios and studies
  sim/hccl            # HCCL environment settings
  sim/nccl            # NCCL environment settings
  sim/validation      # measured benchmark logs against predictions
  sim/report          # results as tables, CSV, Markdown, JSON; provenance
  sim/study           # running scenarios, studies and plans; partial results; result files
  sim/cli             # the command lines
)
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
cd "$root"

rank_of() { # the layer index of a path (longest matching prefix), or -1
  local best=-1 bestlen=0 i
  for i in "${!layers[@]}"; do
    local l=${layers[$i]}
    if [[ "$1" == "$l" || "$1" == "$l"/* ]] && (( ${#l} > bestlen )); then best=$i; bestlen=${#l}; fi
  done
  echo "$best"
}

bad=0
while IFS= read -r file; do
  from=$(rank_of "$file")
  (( from >= 0 )) || continue
  while IFS= read -r line; do
    inc=${line#*\"}; inc=${inc%%\"*}
    to=$(rank_of "$inc")
    (( to >= 0 )) || continue
    if (( to > from )); then
      echo "$file includes $inc: ${layers[$from]} may not look up to ${layers[$to]}"
      bad=1
    fi
  done < <(grep -h '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" || true)
done < <(find sim algorithms topologies -name '*.h' -o -name '*.cpp' -o -name '*.in' | sort)

if (( bad )); then
  echo "check_layers: upward includes found (the order is at the top of scripts/check_layers.sh)"
  exit 1
fi
echo "check_layers: every include looks down (${#layers[@]} layers)"
