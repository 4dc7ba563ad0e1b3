#!/usr/bin/env bash
# Benchmarks the simulator: Ring AllReduce on an HCCS ring of P devices,
# then hierarchical AllReduce on multi-server clusters up to 512 x 8, then
# stand-alone 64 MiB rings on 256 to 16,384 H100s (NCCL and ideal) and a
# 19-size NCCL sweep at 16,384, packet-level RoCE runs on 2 x 8 and 16 x 8, then training-step studies (the seed table, a capacity plan, a 7 B model on
# 512 devices, Llama 3 70B on 1,024 devices under TP x PP x DP, Llama 3 405B on 1,024 to 131,072 H100s), collsim plan
# on that 70 B model, and a 2,000-point selector check.
# The work limit (--max-events) is lifted: the cases here are sized on purpose.
# For each case: median wall time and peak memory over several runs, and
# engine events per second (events from the run's own CSV / median wall).
#
#   scripts/bench.sh [--runs N] [--quick]
#
# --quick runs only the fast-mode cases. 4 KiB-segment runs whose event count
# would take more than a few minutes are skipped and listed as such.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=3
quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --quick) quick=1; shift ;;
    *) echo "usage: scripts/bench.sh [--runs N] [--quick]" >&2; exit 2 ;;
  esac
done

scripts/setup.sh
if ! [ -x /usr/bin/time ]; then
  echo "bench: installing GNU time (peak memory)" >&2
  ${SUDO:-} apt-get install -y -qq time >/dev/null
fi
scripts/build.sh release >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Segments a 4 KiB run would push: 2(p-1)p messages of ceil(n/p/4096) segments.
# Above this many we skip it (about 3 minutes at ~10 M events/s, x runs).
max_packet_segments=400000000

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Runs `collsim perf ARGS` $runs times; sets wall and peak (medians), and
# events and simtime (the same in every run: the simulation is deterministic).
measure() {
  local walls=() peaks=() w p
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" build/collsim perf --op allreduce --no-verify --max-events 1e12 --format csv "$@" > "$tmp/out.csv"
    read -r w p < "$tmp/time"
    walls+=("$w"); peaks+=("$p")
  done
  wall=$(printf "%s\n" "${walls[@]}" | median)
  peak=$(printf "%s\n" "${peaks[@]}" | median)
  events=$(awk -F, '!/^#/ && ++n == 2 {print $10}' "$tmp/out.csv") # after the provenance line and the header
  simtime=$(awk -F, '!/^#/ && ++n == 2 {print $7}' "$tmp/out.csv")
}

printf "%-7s %-8s %-8s %10s %12s %12s %10s %14s\n" ranks size segment wall_s events Mevents/s peak_MiB sim_time_us
for p in 8 64 512 4096; do
  cat > "$tmp/ring$p.yaml" <<YAML
name: ring-$p
devices: $p
hccs: {shape: ring, bandwidth: 12GB/s, latency: 1us}
YAML
  for size in 64MiB 1GiB; do
    case "$size" in 64MiB) bytes=67108864 ;; 1GiB) bytes=1073741824 ;; esac
    for seg in 1MiB 4KiB; do
      if [ "$seg" = 4KiB ]; then
        [ "$quick" = 1 ] && continue
        per_msg=$(( (bytes / p + 4095) / 4096 ))
        segments=$(( 2 * (p - 1) * p * per_msg ))
        if [ "$segments" -gt "$max_packet_segments" ]; then
          printf "%-7s %-8s %-8s %10s   (skipped: %d segments, several minutes per run)\n" "$p" "$size" "$seg" "-" "$segments"
          continue
        fi
      fi
      measure --cluster "$tmp/ring$p.yaml" --algo ring -b "$size" -e "$size" --segment "$seg"
      awk -v p="$p" -v size="$size" -v seg="$seg" -v wall="$wall" -v ev="$events" -v peak="$peak" -v sim="$simtime" \
        'BEGIN { rate = wall >= 0.05 ? sprintf("%.1f", ev / wall / 1e6) : "-";  # /usr/bin/time has 10 ms resolution
                 printf "%-7s %-8s %-8s %10.2f %12d %12s %10.1f %14.1f\n", p, size, seg, wall, ev, rate, peak / 1024, sim }'
    done
  done
done
echo
echo "Hierarchical AllReduce on multi-server clusters (fast mode, 1 MiB segments)"
printf "%-22s %-18s %-6s %10s %12s %12s %10s %14s\n" cluster algorithm size wall_s events Mevents/s peak_MiB sim_time_us
for spec in "atlas-16x8-leafspine hier:ring+rhd 1GiB" "atlas-16x8-leafspine ring 1GiB" \
            "atlas-512x8-rail hier:ring+rhd 1GiB" "atlas-512x8-rail hierpipe:ring+rhd 1GiB"; do
  read -r cluster algo size <<< "$spec"
  measure --cluster "configs/clusters/$cluster.yaml" --algo "$algo" -b "$size" -e "$size"
  awk -v c="$cluster" -v a="$algo" -v size="$size" -v wall="$wall" -v ev="$events" -v peak="$peak" -v sim="$simtime" \
    'BEGIN { rate = wall >= 0.05 ? sprintf("%.1f", ev / wall / 1e6) : "-";
             printf "%-22s %-18s %-6s %10.2f %12d %12s %10.1f %14.1f\n", c, a, size, wall, ev, rate, peak / 1024, sim }'
done
echo
echo "Stand-alone collectives at frontier scale: a 64 MiB ring AllReduce on H100 servers on one switch, NCCL's"
echo "channels and protocols against the ideal library; alike servers simulated once (#68); est_s = --estimate's wall"
printf "%-26s %-7s %6s %-8s %10s %8s %12s %12s %10s %14s\n" cluster library ranks size wall_s est_s events Mevents/s peak_MiB sim_time_us
frontier() { # CLUSTER SERVERS LIBRARY SIZE RUNS
  local cluster="$1" servers="$2" library="$3" size="$4" keep=$runs
  local args=(--cluster "configs/clusters/$cluster.yaml" --algo ring -b "$size" -e "$size")
  [ -n "$servers" ] && args+=(--set "servers=$servers")
  [ "$library" = ideal ] && args+=(--set library=ideal)
  [ "$library" = nccl ] && [ "$cluster" != h100-2x8-ib400 ] && args+=(--set library=nccl)
  runs="$5"
  measure "${args[@]}"
  runs=$keep
  local est ranks
  est=$(build/collsim perf --op allreduce --no-verify --max-events 1e12 --estimate "${args[@]}" 2>&1 |
        sed -n 's/.*(~\([0-9.]*\) \(s\|min\|h\)).*/\1 \2/p' | awk '{print $2 == "min" ? $1 * 60 : $2 == "h" ? $1 * 3600 : $1}')
  ranks=$(awk -F, '!/^#/ && ++n == 2 {print $3}' "$tmp/out.csv")
  awk -v c="$cluster" -v l="$library" -v r="$ranks" -v size="$size" -v wall="$wall" -v est="$est" -v ev="$events" \
      -v peak="$peak" -v sim="$simtime" \
    'BEGIN { rate = wall >= 0.05 ? sprintf("%.1f", ev / wall / 1e6) : "-";
             printf "%-26s %-7s %6d %-8s %10.2f %8s %12d %12s %10.1f %14.1f\n", c, l, r, size, wall, est, ev, rate, peak / 1024, sim }'
}
for servers in 32 256 2048; do
  for library in nccl ideal; do frontier h100-2x8-ib400 "$servers" "$library" 64MiB "$runs"; done
done
# Three tiers: the SuperPOD's rail leaves and spines choose among spines by
# hashing node numbers, which a shift of the servers does not keep: every
# rank runs (the NCCL run once: minutes).
[ "$quick" = 1 ] || frontier h100-superpod-4su "" ideal 64MiB "$runs"
[ "$quick" = 1 ] || frontier h100-superpod-4su "" nccl 64MiB 1
if [ "$quick" = 0 ]; then
  /usr/bin/time -f "%e %M" -o "$tmp/time" build/collsim perf --op allreduce --no-verify --max-events 1e12 --format csv \
    --cluster configs/clusters/h100-2x8-ib400.yaml --set servers=2048 --algo ring -b 1KiB -e 256MiB > "$tmp/out.csv"
  read -r w p < "$tmp/time"
  awk -v wall="$w" -v peak="$p" -v ev="$(awk -F, '!/^#/ && ++n > 1 {s += $10} END {print s}' "$tmp/out.csv")" \
    'BEGIN { printf "NCCL ring, 19 sizes 1 KiB-256 MiB on 16,384 ranks (one run): %.1f s wall, %d events, %.1f MiB peak\n", wall, ev, peak / 1024 }'
fi
echo
echo "Packet level (RoCE packets, ECN, DCQCN, PFC off): engine events, and packet hops per second"
printf "%-22s %-18s %-6s %10s %12s %12s %12s %10s %14s\n" cluster algorithm size wall_s events packet_hops Mhops/s peak_MiB sim_time_us
for spec in "atlas-2x8 ring 1GiB" "atlas-2x8 hier:ring+rhd 1GiB" "atlas-16x8-leafspine ring 1GiB" \
            "atlas-16x8-leafspine hier:ring+rhd 1GiB"; do
  read -r cluster algo size <<< "$spec"
  walls=(); peaks=()
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" build/collsim perf --op allreduce --no-verify --max-events 1e12 --fidelity packet --format json \
      --cluster "configs/clusters/$cluster.yaml" --algo "$algo" -b "$size" -e "$size" > "$tmp/out.json"
    read -r w p < "$tmp/time"
    walls+=("$w"); peaks+=("$p")
  done
  wall=$(printf "%s\n" "${walls[@]}" | median)
  peak=$(printf "%s\n" "${peaks[@]}" | median)
  read -r events hops simtime < <(/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; \
print(r['events'], r['network']['packet_hops'], r['time_us'])" "$tmp/out.json")
  awk -v c="$cluster" -v a="$algo" -v size="$size" -v wall="$wall" -v ev="$events" -v hops="$hops" -v peak="$peak" -v sim="$simtime" \
    'BEGIN { printf "%-22s %-18s %-6s %10.2f %12d %12d %12.1f %10.1f %14.1f\n", c, a, size, wall, ev, hops, hops / wall / 1e6, peak / 1024, sim }'
done
echo
echo "Training steps (collsim run on studies; events summed over the study's points)"
# Runs `collsim run ARGS --format json` $runs times; sets wall, peak, events, points.
measure_run() {
  local walls=() peaks=() w p
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f "%e %M" -o "$tmp/time" build/collsim run "$@" --max-events 1e12 --format json > "$tmp/out.json"
    read -r w p < "$tmp/time"
    walls+=("$w"); peaks+=("$p")
  done
  wall=$(printf "%s\n" "${walls[@]}" | median)
  peak=$(printf "%s\n" "${peaks[@]}" | median)
  read -r events points < <(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(sum(p['events'] for p in d['points']), len(d['points']))" "$tmp/out.json")
}
cat > "$tmp/decoder-7b-512.yaml" <<YAML
name: decoder-7b-512
cluster: $PWD/configs/clusters/atlas-2x8.yaml
algo: hier:ring+rhd
training: {model: $PWD/configs/models/decoder-7b.yaml, bucket: 64MiB, pipeline: 2}
YAML
# Llama 3 70B on 1,024 NPUs and 405B on 1,024 to 131,072 H100s.
source scripts/bench_steps.sh
write_step_scenarios "$tmp"
printf "%-44s %7s %10s %12s %12s %10s\n" study points wall_s events Mevents/s peak_MiB
for spec in "scenarios/seed-8card-tuning.yaml" "scenarios/capacity-plan-bert.yaml" \
            "$tmp/decoder-7b-512.yaml --set cluster.servers=64" \
            "$tmp/llama3-70b-1024.yaml --set cluster.servers=128" \
            "$tmp/llama3-405b-h100.yaml --set cluster.servers=128" \
            "$tmp/llama3-405b-h100.yaml --set cluster.servers=2048" \
            "$tmp/llama3-405b-h100.yaml --set cluster.servers=16384"; do
  read -r -a args <<< "$spec"
  measure_run "${args[@]}"
  label=$(basename "${args[0]}" .yaml)${args[2]:+ (${args[2]})}
  awk -v l="$label" -v n="$points" -v wall="$wall" -v ev="$events" -v peak="$peak" \
    'BEGIN { rate = wall >= 0.05 ? sprintf("%.1f", ev / wall / 1e6) : "-";
             printf "%-44s %7d %10.2f %12d %12s %10.1f\n", l, n, wall, ev, rate, peak / 1024 }'
done
echo
# The same plan on 1,024 and on 16,384 NPUs (global batch 2,048: folded replicas, docs/planning.md).
plan_case() { # LABEL ARGS...: one run of collsim plan ARGS
  local label="$1"; shift
  echo "collsim plan: $label (all cores, one run)"
  /usr/bin/time -f "%e %M" -o "$tmp/time" build/collsim plan "$@" --max-events 1e12 --format json > "$tmp/plan.json"
  read -r wall peak < "$tmp/time"
  read -r simulated pruned events < <(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(len(d['plans']), len(d['pruned']), sum(p.get('events', 0) for p in d['plans']))" "$tmp/plan.json")
  awk -v wall="$wall" -v peak="$peak" -v s="$simulated" -v p="$pruned" -v ev="$events" \
    'BEGIN { printf "%d layouts (%d simulated, %d pruned): %.1f s wall, %.1f M events/s, %.1f MiB peak\n", s + p, s, p, wall, ev / wall / 1e6, peak / 1024 }'
}
plan_case "Llama 3 70B on 1,024 NPUs (scenarios/plan-llama3-70b.yaml)" scenarios/plan-llama3-70b.yaml
plan_case "the same on 16,384 NPUs, global batch 2,048" scenarios/plan-llama3-70b.yaml \
  --set 'sweep[cluster.servers]=[2048]' --set plan.global_batch=2048
echo
echo "Selector check on a 2,000-point grid (every candidate simulated at every point, all cores)"
/usr/bin/time -f "%e %M" -o "$tmp/time" build/collsim selector check --rules configs/selector/hccl-910b.yaml \
  --grid scenarios/selector-grid-2000.yaml --format csv > "$tmp/grid.csv"
read -r wall peak < "$tmp/time"
awk -v wall="$wall" -v peak="$peak" -v points="$(($(grep -vc '^#' "$tmp/grid.csv") - 1))" \
  'BEGIN { printf "%d points: %.1f s wall, %.1f MiB peak (one run)\n", points, wall, peak / 1024 }'
echo "(median of $runs runs each; $(nproc) cores; $(date -u +%Y-%m-%d))"
