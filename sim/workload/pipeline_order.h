// The order in which one pipeline stage runs the forward and backward passes
// of a step's micro-batches.
//
// GPipe: every forward, then every backward (in the same micro-batch order).
// 1F1B (PipeDream-Flush, Megatron-LM's default): stage s of p first runs
// min(p - s - 1, m) forwards (warm-up), then alternates one forward and one
// backward, then runs the backwards left (cool-down); so it holds at most
// p - s micro-batches' activations, where GPipe holds all m.
// Interleaved (Megatron-LM's virtual pipeline): each device holds v model
// chunks, chunk k of device s being the k-th of the pp x v pieces after
// s + k pp of them. Micro-batches go in groups of pp through chunk 0, then
// chunk 1, ...; a device warms up with 2 (p - s - 1) + (v - 1) p chunk
// forwards, then alternates, then cools down. Each chunk is 1/v of the
// device's layers, so its bubble shrinks to (p-1)/(v m + p-1); m must be a
// multiple of pp.
// Every stage sends and receives in these orders, so a stage's sends to its
// neighbour match the neighbour's receives one for one. The idle time
// (the bubble) is not computed here: it arises when the executor runs the
// stages against each other.
#pragma once

#include <vector>

#include "sim/workload/model.h"
#include "sim/workload/parallel_layout.h"

namespace collsim {

struct PipelineTask {
  bool forward = true;
  int microBatch = 0;
  int chunk = 0; // interleaved: the device's model chunk
  bool operator==(const PipelineTask&) const = default;
};

std::vector<PipelineTask> stageOrder(PipelineKind kind, int stages, int microBatches, int stage, int chunks = 1);

// The layers of each stage, [first, end) in the model's forward order. A
// transformer's blocks are split as evenly as they go, the embedding joins
// the first stage and the head the last; when the blocks do not divide,
// the stages in between take the extra blocks first, since the ends carry
// the embedding and the head (Llama 3 405B: 126 blocks on 16 stages, 7 on
// the first and last, 8 on the others). Other models are cut into runs of
// nearly equal layer counts. `counts`, when given (parallel.stage_layers),
// is the user's split instead: blocks per stage (a model's layers, for a
// model not given by shape), as many as `stages`, adding up to them all.
struct LayerRange {
  std::size_t first = 0, end = 0;
};
std::vector<LayerRange> splitLayers(const ModelSpec& model, int stages, const std::vector<int>& counts = {});

// The most chunk passes whose activations the stage holds at once (a
// micro-batch's on all its layers counts `chunks`).
int activationsInFlight(PipelineKind kind, int stages, int microBatches, int stage, int chunks = 1);

} // namespace collsim
