#!/usr/bin/env bash
# Prints, as Markdown, every algorithm of every collective on the 8-device
# HCCS ring and full mesh at 64 KiB, 1 MiB, 64 MiB and 1 GiB (docs/model.md's
# algorithm tables). Needs build/collsim (scripts/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
for cluster in hccs-ring-8 hccs-mesh-8; do
  for op in allreduce reducescatter allgather broadcast reduce alltoall; do
    build/collsim run scenarios/flat-algorithms.yaml --format md \
      --set "cluster=configs/clusters/$cluster.yaml" --set "op=$op" --set "name=$op"
    echo
  done
done
