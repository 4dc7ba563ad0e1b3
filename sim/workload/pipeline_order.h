// The order in which one pipeline stage runs the forward and backward passes
// of a step's micro-batches.
//
// GPipe: every forward, then every backward (in the same micro-batch order).
// 1F1B (PipeDream-Flush, Megatron-LM's default): stage s of p first runs
// min(p - s - 1, m) forwards (warm-up), then alternates one forward and one
// backward, then runs the backwards left (cool-down); so it holds at most
// p - s micro-batches' activations, where GPipe holds all m.
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
  bool operator==(const PipelineTask&) const = default;
};

std::vector<PipelineTask> stageOrder(PipelineKind kind, int stages, int microBatches, int stage);

// The layers of each stage, [first, end) in the model's forward order. A
// transformer's blocks are split evenly (stages must divide them, as in
// Megatron-LM), the embedding joins the first stage and the head the last;
// other models are cut into runs of nearly equal layer counts.
struct LayerRange {
  std::size_t first = 0, end = 0;
};
std::vector<LayerRange> splitLayers(const ModelSpec& model, int stages);

// The most micro-batches whose activations the stage holds at once.
int activationsInFlight(PipelineKind kind, int stages, int microBatches, int stage);

} // namespace collsim
