// Reading a scenario's `training:` section:
//
//   training:
//     model: ../configs/models/bert-large.yaml  # a path or an inline model (inlined by the scenario loader)
//     micro_batch: 8          # samples per device per micro-batch (default: the model's)
//     accumulation: 4         # micro-batches per optimizer step; only the last communicates
//     bucket: 64MiB           # gradient bucket (PyTorch DDP bucket_cap_mb: a framework setting)
//     pipeline: 2             # buckets whose AllReduce may be in flight at once (1: one at a time)
//     framework: megatron     # ddp (default), fsdp, megatron or deepspeed: whose defaults the overlaps take
//     overlap: true           # AllReduce a bucket as soon as it is ready, during backward; or each switch:
//     overlap: {grad_reduce: true, param_gather: true, tp_comm: true, tp_wgrad: true}
//     overlap: {param_prefetch: false}  # ZeRO 3: gather each layer's weights in line, not one pass ahead
//     selector: ../configs/selector/hccl-910b.yaml  # rules for `algo: auto` (read by the scenario)
//     parallel:               # tensor / pipeline / data parallelism (sim/workload/parallel_step.h)
//       tp: 8                 # tensor-parallel degree (divides the heads)
//       cp: 2                 # context parallelism: each sequence over cp ranks (ring attention)
//       pp: 4                 # pipeline stages (divide the layers)
//       dp: 32                # default: the devices / (tp x pp)
//       ep: 8                 # expert parallelism inside dp (MoE models)
//       expert_imbalance: 1.2 # the busiest device's expert work over the mean
//       zero: 1               # ZeRO stage 0-3
//       micro_batches: 16     # per optimizer step (instead of accumulation)
//       schedule: 1f1b        # or gpipe, or interleaved
//       virtual_stages: 2     # interleaved: model chunks per device (default 2)
//       sequence_parallel: true
//       stage_layers: [7, 8, 8, 7]  # blocks per stage (interleaved: per chunk, pp x virtual_stages); default: even
//       order: tp-cp-dp-pp    # rank placement, innermost first
#pragma once

#include "sim/workload/training.h"

namespace collsim {

class ConfigNode;

// The overlaps' defaults by framework (each as its own documentation gives it):
//                 grad_reduce      param_gather  tp_comm  tp_wgrad
//   ddp, fsdp     on (hooks)       -             -        -
//   megatron      off              off           off      on
//   deepspeed     on under ZeRO 3  off           off      off
// PyTorch DDP and FSDP reduce each bucket as backward fills it; Megatron-LM's
// --overlap-grad-reduce, --overlap-param-gather and --tp-comm-overlap are
// off unless given, and its ColumnParallelLinear runs the input gradient's
// collective asynchronously beside the weight gradient's GEMM; DeepSpeed's
// overlap_comm is off unless configured, on in its ZeRO 3 defaults.
// param_prefetch (ZeRO 3, every framework: on) gathers a layer's weights
// beside the previous pass, as FSDP's and DeepSpeed's prefetch are
// documented to; off, each pass waits for its own gather. llm-foundry's
// micro-batch sweep on 8 A100 (docs/validation.md) ran as if off.
// Everything but `selector`, which the scenario loader reads. Throws ConfigError.
TrainingSpec loadTraining(const ConfigNode& node);

} // namespace collsim
