# Sourced by scripts/bench.sh and scripts/bench_estimate.sh: writes the
# training steps both measure into directory $1.
write_step_scenarios() {
  local dir="$1"
  # Llama 3 70B on 1,024 910B NPUs under TP 8 x PP 8 x DP 16 (#15's target: under 2 s).
  cat > "$dir/llama3-70b-1024.yaml" <<YAML
name: llama3-70b-1024
cluster: $PWD/configs/clusters/atlas-800t-a2-8.yaml
algo: auto
simulation: {segment: 16MiB}
training:
  model: $PWD/configs/models/llama3-70b.yaml
  bucket: 256MiB
  pipeline: 2
  parallel: {tp: 8, pp: 8, zero: 1, micro_batches: 16, sequence_parallel: true}
YAML
  # Llama 3 405B as Meta trained it (tp 8, pp 16 interleaved, 16 micro-batches
  # a replica) on DGX H100 servers, whose DP replicas are simulated once
  # (docs/planning.md, "At the scale of frontier runs").
  cat > "$dir/llama3-405b-h100.yaml" <<YAML
name: llama3-405b-h100
cluster: $PWD/configs/clusters/dgx-h100-8.yaml
algo: auto
simulation: {segment: 16MiB}
training:
  model: $PWD/configs/models/llama3-405b.yaml
  framework: megatron
  bucket: 256MiB
  parallel: {tp: 8, pp: 16, zero: 1, micro_batches: 16, schedule: interleaved, virtual_stages: 2, sequence_parallel: true}
YAML
}
