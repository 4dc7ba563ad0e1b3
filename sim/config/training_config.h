// Reading a scenario's `training:` section:
//
//   training:
//     model: ../configs/models/bert-large.yaml  # a path or an inline model (inlined by the scenario loader)
//     micro_batch: 8          # samples per device per micro-batch (default: the model's)
//     accumulation: 4         # micro-batches per optimizer step; only the last communicates
//     bucket: 64MiB           # gradient bucket (PyTorch DDP bucket_cap_mb: a framework setting)
//     pipeline: 2             # buckets whose AllReduce may be in flight at once (1: one at a time)
//     overlap: true           # AllReduce a bucket as soon as it is ready, during backward
//     selector: ../configs/selector/hccl-910b.yaml  # rules for `algo: auto` (read by the scenario)
//     parallel:               # tensor / pipeline / data parallelism (sim/workload/parallel_step.h)
//       tp: 8                 # tensor-parallel degree (divides the heads)
//       pp: 4                 # pipeline stages (divide the layers)
//       dp: 32                # default: the devices / (tp x pp)
//       ep: 8                 # expert parallelism inside dp (MoE models)
//       expert_imbalance: 1.2 # the busiest device's expert work over the mean
//       zero: 1               # ZeRO stage 0-3
//       micro_batches: 16     # per optimizer step (instead of accumulation)
//       schedule: 1f1b        # or gpipe, or interleaved
//       virtual_stages: 2     # interleaved: model chunks per device (default 2)
//       sequence_parallel: true
//       order: tp-dp-pp       # rank placement, innermost first
#pragma once

#include "sim/workload/training.h"

namespace collsim {

class ConfigNode;

// Everything but `selector`, which the scenario loader reads. Throws ConfigError.
TrainingSpec loadTraining(const ConfigNode& node);

} // namespace collsim
