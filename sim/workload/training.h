// A training job as the step model sees it: the model, micro-batches per
// optimizer step, the gradient bucket, buckets in flight and overlap. Read
// from a scenario's `training:` section by sim/config/training_config.h.
//
// The algorithm of every bucket's AllReduce is chosen by the caller
// (StepOptions): the scenario's `algo`, or with `auto` a function from
// bucket size to algorithm (the selector's rules, held by the scenario).
#pragma once

#include <optional>

#include "sim/workload/model.h"
#include "sim/workload/parallel_layout.h"

namespace collsim {

// The framework a run uses, whose defaults the overlaps take (training_config.h).
enum class Framework { Ddp, Fsdp, Megatron, DeepSpeed };
const char* frameworkName(Framework f); // "ddp", ...

struct TrainingSpec {
  ModelSpec model;
  int accumulation = 1;
  Bytes bucket = 25'000'000; // PyTorch DDP's default bucket_cap_mb = 25
  int pipeline = 1;
  Framework framework = Framework::Ddp;
  // What runs beside the compute (parallel_step.h says how each is timed):
  bool overlap = true;             // the DP gradients reduced as backward produces them
  bool paramGatherOverlap = false; // ZeRO 1-2: the updated weights gathered beside the next forward
  bool paramPrefetch = true;       // ZeRO 3: each layer's weights gathered one pass ahead, beside compute
  bool tpCommOverlap = false;      // TP's AllGathers and ReduceScatters pipelined with their GEMMs
  bool tpWgradOverlap = false;     // a backward piece's input-gradient collective beside its weight gradient
  // Gradients copied into each bucket's buffer before its collective and
  // back after it (PyTorch DDP's flat buckets); false: the gradients are
  // the buffer (DDP's gradient_as_bucket_view, Megatron's and FSDP's).
  bool bucketCopy = true;
  // `parallel:`: tensor, pipeline and data parallelism (parallel_step.h);
  // absent, every device holds the whole model.
  std::optional<ParallelLayout> parallel;
};

} // namespace collsim
