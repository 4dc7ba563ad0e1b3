// A neural network as the training-step model sees it: its layers in
// forward order with their parameters and share of the compute, the bytes
// each parameter costs in weights, gradients and optimizer state, the
// activations a sample keeps for the backward pass, and the work of one
// sample's forward pass. Read from YAML by sim/config/model_config.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/input_error.h"
#include "sim/core/units.h"
#include "sim/workload/transformer_shape.h"

namespace collsim {

struct ModelLayer {
  std::string name;
  std::uint64_t parameters = 0;
  double computeShare = 0; // of the model's forward (and backward) time
};

// Bytes per parameter of each kind of training state.
struct Precision {
  std::uint32_t weights = 4;
  std::uint32_t gradients = 4;
  std::uint32_t masterWeights = 0;  // mixed precision: the fp32 copy the optimizer updates
  std::uint32_t optimizerState = 8; // Adam: m and v in fp32
  // A separate buffer gradients accumulate in over micro-batches (e.g. fp32
  // under fp16 gradients); 0: they accumulate in place, PyTorch's default.
  std::uint32_t accumulation = 0;
  // The bytes an Adam-like update of `parameters` moves at memory speed: it
  // reads weights, master weights, gradients and state, and writes weights,
  // master weights and state back.
  Bytes optimizerTraffic(std::uint64_t parameters) const {
    return parameters * (2 * weights + 2 * masterWeights + gradients + 2 * optimizerState);
  }
};

struct ModelSpec {
  std::string name;
  std::string description;
  std::vector<ModelLayer> layers; // forward order, repeats expanded
  Precision precision;
  int microBatch = 1;
  Bytes activationsPerSample = 0;
  // Work per micro-batch: given as times, or as FLOPs that the device's rate
  // times the achieved utilization turns into times.
  std::optional<Time> forward, backward;
  double flopsPerSample = 0;
  double utilization = 0;
  double backwardFactor = 2; // backward = 2 x forward: gradients of inputs and of weights
  // The shape it was derived from, when the file gave one.
  std::optional<TransformerShape> transformer;

  std::uint64_t parameters() const;
  Bytes gradientBytes() const { return parameters() * precision.gradients; }
};

// Forward and backward time of one micro-batch on one device.
struct PassTimes {
  Time forward = 0, backward = 0;
};
// The model's own times, or its FLOPs at `utilization` of a device of
// `flops` peak (backward: backwardFactor x forward). layer_compute.h's
// passTimes also times a transformer by its operations.
// Throws InputError when a pass would not fit the clock (kMaxComputeSeconds).
PassTimes flatPassTimes(const ModelSpec& model, double deviceFlops);
inline constexpr double kMaxComputeSeconds = 1e5;

} // namespace collsim
