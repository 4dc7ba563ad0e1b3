// One optimizer step of training under a parallel layout (parallel_layout.h)
// on a cluster: the stage programs and group collectives built from the
// model's shape, the schedule (parallel_step_schedule.h) replayed on the
// link network, and the step's figures with where the time went. Plain data
// parallelism is the layout tp = pp = 1, dp = every device: one model of
// buckets and memory for every step.
//
// What each piece costs (Megatron-LM; Korthikanti et al. 2022):
// - compute: each layer's forward, backward and recomputation on a TP rank
//   (layer_compute.h: a transformer's operations on the device); a block
//   runs its attention, then its FFN. Recomputation runs before a layer's
//   backward: full recomputation repeats its forward with its TP (and EP)
//   collectives, selective only the attention core.
// - TP (transformer blocks): forward, an AllReduce of the micro-batch's
//   activations (b x s x h elements of the weights' size) after the
//   attention and one after the FFN; backward, one after each again. With
//   sequence parallelism each becomes an AllGather before and a
//   ReduceScatter after the piece, of the same b x s x h bytes.
// - PP: a stage receives each micro-batch's activations from the previous
//   stage before its forward and sends them on after it; backward sends the
//   gradients of the same size back. The same b x s x h bytes (divided by tp
//   with sequence parallelism, where each TP rank holds its share).
// - DP: the stage's gradients (its layers' parameters / tp) in buckets
//   (bucket_cuts.h: each ready where backward makes its last byte),
//   reduced on the DP group as the last micro-batch's backward produces
//   them (under ZeRO 2-3, each micro-batch's, as its backward produces
//   them), each copied into its buffer and back where the framework does
//   (training.bucket_copy), on as many streams as its algorithm runs, in
//   HCCL's loops over its buffer when larger: AllReduce, or ReduceScatter under ZeRO, whose optimizer then
//   updates 1/dp of the state; ZeRO 1-2 then AllGather the weights, ZeRO 3
//   gathers each layer's weights before each of its passes instead (on a
//   stream of its own, one layer ahead: DeepSpeed's and FSDP's prefetch;
//   in line without it, training.overlap.param_prefetch).
// Not modelled yet: the embedding's and loss's TP collectives, uneven
// micro-batch costs. (The SMs a library's kernels take from compute beside
// them are: StepOptions::collectiveComputeShare.)
#pragma once

#include "sim/run/work_estimate.h"
#include "sim/workload/step_result.h"
#include "topologies/cluster.h"

namespace collsim {

// Throws InputError when the layout does not fit the cluster or the model
// (tp x pp x dp is not the device count, tp does not divide the heads, ...).
void checkParallelLayout(const Cluster& cluster, const TrainingSpec& training);

// Called by simulateTrainingStep and estimateTrainingStep, which check the
// device first.
StepResult simulateParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options);
WorkEstimate estimateParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options);

} // namespace collsim
