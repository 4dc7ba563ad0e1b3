#!/usr/bin/env bash
# How close `--estimate` comes to the real run, across commands: events,
# wall time and peak memory, estimated and measured (scripts/
# bench_estimate.py), for collectives whose cost per event differs (a ring's
# one flow a link; a mesh's ranks^2 pairs in flight at once; hierarchical
# and packet-level runs), training steps (Llama 3 70B and 405B folded and
# in full, 256 to 131,072 devices), a sweep of 99,856 points, a plan, a
# topology, a comparison and a calibration, a threads verification, derived selector rules
# and select --explain. The target (#63): every wall time and memory within
# 2x of the real one, both ways; the script exits 1 when one is not.
#
#   scripts/bench_estimate.sh [--full] [--only REGEX]
#     --full adds the 2,048- and 4,096-rank meshes and the 405 B step in full
#     on 16,384 H100s (10 minutes, 1.4-8 GB); --only runs the cases whose
#     label REGEX matches.
set -euo pipefail
cd "$(dirname "$0")/.."
full=0 only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --full) full=1 ;;
    --only) only="$2"; shift ;;
    *) echo "usage: scripts/bench_estimate.sh [--full] [--only REGEX]" >&2; exit 2 ;;
  esac
  shift
done
scripts/build.sh release >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/switch.yaml" <<YAML
name: switch
devices: 8
hccs: {shape: switch, bandwidth: 12GB/s, latency: 1us}
device: {reduce_bandwidth: none}
YAML
cat > "$tmp/ring.yaml" <<YAML
name: ring
devices: 8
hccs: {shape: ring, bandwidth: 12GB/s, latency: 1us}
YAML


source scripts/bench_steps.sh
write_step_scenarios "$tmp"
# A sweep of 316 x 316 points on the 8-device ring: reading its points is
# most of the run; the estimate reads a sample of them.
{
  echo "name: sweep-99856"
  echo "cluster: $PWD/configs/clusters/hccs-ring-8.yaml"
  echo "op: allreduce"
  echo "algo: ring"
  echo "sizes: [1MiB]"
  echo "sweep:"
  printf '  cluster.hccs.bandwidth: ['
  for i in $(seq 1000 1315); do printf '%sMB/s%s' "$i" "$([ "$i" = 1315 ] || echo ', ')"; done
  echo ']'
  echo "  simulation.segment: {from: 65536, to: 380536, step: 1000}"
} > "$tmp/sweep.yaml"
cat > "$tmp/grid.yaml" <<YAML
name: grid
ops: [allreduce, allgather]
sizes: [64KiB, 1MiB, 16MiB, 256MiB]
clusters:
  - base: $PWD/configs/clusters/atlas-2x8.yaml
    servers: [1, 2, 4, 8]
YAML

# A line a case: LABEL | ARGUMENTS | ARGUMENTS OF THE REAL RUN ONLY.
off="--set simulation.symmetry=off"
full_cases=""
if [ "$full" = 1 ]; then
  full_cases="perf mesh 2048 ranks, 1 GiB | perf --cluster $tmp/switch.yaml --set devices=2048 --algo mesh -b 1GiB -e 1GiB | --format csv
perf mesh 4096 ranks, 1 GiB | perf --cluster $tmp/switch.yaml --set devices=4096 --algo mesh -b 1GiB -e 1GiB --max-memory 20GiB | --format csv
run 405B, 16,384 H100s, in full | run $tmp/llama3-405b-h100.yaml --set cluster.servers=2048 $off | --format json"
fi
cat > "$tmp/cases" <<CASES
perf ring 512 ranks, 1 GiB | perf --cluster $tmp/ring.yaml --set devices=512 --algo ring -b 1GiB -e 1GiB | --format csv
perf ring 4096 ranks, 1 GiB | perf --cluster $tmp/ring.yaml --set devices=4096 --algo ring -b 1GiB -e 1GiB | --format csv
perf mesh 256 ranks, 1 GiB | perf --cluster $tmp/switch.yaml --set devices=256 --algo mesh -b 1GiB -e 1GiB | --format csv
perf mesh 512 ranks, 1 GiB | perf --cluster $tmp/switch.yaml --set devices=512 --algo mesh -b 1GiB -e 1GiB | --format csv
perf mesh 1024 ranks, 1 GiB | perf --cluster $tmp/switch.yaml --set devices=1024 --algo mesh -b 1GiB -e 1GiB | --format csv
perf hier ring+rhd 512x8, 16 GiB, folded | perf --cluster configs/clusters/atlas-512x8-rail.yaml --algo hier:ring+rhd -b 16GiB -e 16GiB | --format csv
perf NCCL ring 2,048 H100s, 64 MiB, folded | perf --cluster configs/clusters/h100-2x8-ib400.yaml --set servers=256 --algo ring -b 64MiB -e 64MiB | --format csv
perf NCCL ring 16,384 H100s, 19 sizes, folded | perf --cluster configs/clusters/h100-2x8-ib400.yaml --set servers=2048 --algo ring -b 1KiB -e 256MiB | --format csv
perf packet 2x8 ring, 64 MiB | perf --cluster configs/clusters/atlas-2x8.yaml --algo ring -b 64MiB -e 64MiB --fidelity packet | --format csv
perf all algorithms, 8 sizes, 2x8 | perf --cluster configs/clusters/atlas-2x8.yaml --algo all -b 1KiB -e 256MiB -f 8 | --format csv
run 70B, 1,024 NPUs, folded | run $tmp/llama3-70b-1024.yaml --set cluster.servers=128 | --format json
run 70B, 1,024 NPUs, in full | run $tmp/llama3-70b-1024.yaml --set cluster.servers=128 $off | --format json
run 405B, 256 H100s, in full | run $tmp/llama3-405b-h100.yaml --set cluster.servers=32 $off | --format json
run 405B, 1,024 H100s, folded | run $tmp/llama3-405b-h100.yaml --set cluster.servers=128 | --format json
run 405B, 1,024 H100s, in full | run $tmp/llama3-405b-h100.yaml --set cluster.servers=128 $off | --format json
run 405B, 4,096 H100s, in full | run $tmp/llama3-405b-h100.yaml --set cluster.servers=512 $off | --format json
run 405B, 16,384 H100s, folded | run $tmp/llama3-405b-h100.yaml --set cluster.servers=2048 | --format json
run 405B, 131,072 H100s, folded | run $tmp/llama3-405b-h100.yaml --set cluster.servers=16384 | --format json
run a sweep of 99,856 points | run $tmp/sweep.yaml | --format csv
plan Llama 3 70B on 128 NPUs, batch 32 | plan scenarios/plan-llama3-70b.yaml --set sweep[cluster.servers]=[16] --set plan.global_batch=32 | --format csv
topology of 262,144 devices as JSON | topology --cluster configs/clusters/atlas-2x8.yaml --set servers=32768 --format json |
compare the H100 pair's log | compare tests/data/measured/h100-2x8-ib400-nccl2.26.txt --cluster configs/clusters/h100-2x8-ib400.yaml |
calibrate the H100 pair's log | calibrate tests/data/measured/h100-2x8-ib400-nccl2.26.txt --cluster configs/clusters/h100-2x8-ib400.yaml | --out $tmp/fitted.yaml
verify ring, 64 threads, 16 MiB | verify --ranks 64 --bytes 16MiB |
selector derive, 2 ops x 4 sizes x 4 clusters | selector derive --grid $tmp/grid.yaml --out $tmp/derived.yaml |
select --explain, 64 MiB on 64 x 8 | select --cluster configs/clusters/atlas-2x8.yaml --set servers=64 --bytes 64MiB --explain |
$full_cases
CASES
/usr/bin/python3 scripts/bench_estimate.py "$tmp/cases" "$only"
