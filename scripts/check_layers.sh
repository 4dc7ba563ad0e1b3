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

# One awk pass over every file: a layer's index is its longest matching
# prefix; an include of a higher layer is reported.
find sim algorithms topologies \( -name '*.h' -o -name '*.cpp' -o -name '*.in' \) | sort |
  xargs grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null |
  awk -v layers="${layers[*]}" '
    BEGIN { n = split(layers, layer, " ") }
    function rank(path,   i, best, bestlen) {
      best = 0; bestlen = 0
      for (i = 1; i <= n; i++)
        if ((path == layer[i] || index(path, layer[i] "/") == 1) && length(layer[i]) > bestlen) {
          best = i; bestlen = length(layer[i])
        }
      return best
    }
    {
      colon = index($0, ":"); file = substr($0, 1, colon - 1)
      inc = substr($0, colon + 1); sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
      from = rank(file); to = rank(inc)
      if (from && to > from) {
        print file " includes " inc ": " layer[from] " may not look up to " layer[to]; bad = 1
      }
    }
    END {
      if (bad) {
        print "check_layers: upward includes found (the order is at the top of scripts/check_layers.sh)"
        exit 1
      }
      print "check_layers: every include looks down (" n " layers)"
    }'
