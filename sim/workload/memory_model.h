// Device memory of data-parallel training, per device.
//
// Every device holds the whole model: weights (and an fp32 master copy under
// mixed precision), one gradient per parameter, the optimizer state, and the
// activations of one micro-batch for its backward pass (micro-batches of an
// accumulation run one after another, so accumulation adds activations of
// none; it adds a separate accumulation buffer only when the model keeps
// one). Communication adds one staging buffer per bucket in flight (a
// pipeline of depth d holds d) and HCCL's two communicator buffers of
// HCCL_BUFFSIZE (200 MB by default).
#pragma once

#include "sim/workload/model.h"
#include "sim/workload/parallel_layout.h"

namespace collsim {

struct MemoryBreakdown {
  Bytes weights = 0, masterWeights = 0, gradients = 0, optimizerState = 0, accumulationBuffer = 0;
  Bytes activations = 0, bucketBuffers = 0, communicatorBuffers = 0;
  Bytes total() const {
    return weights + masterWeights + gradients + optimizerState + accumulationBuffer + activations + bucketBuffers +
           communicatorBuffers;
  }
};

constexpr Bytes kHcclDefaultBufferSize = Bytes(200) << 20;

// `bucketsInFlight` is the pipeline depth, capped by the number of buckets.
MemoryBreakdown memoryPerDevice(const ModelSpec& model, int accumulation, Bytes bucketBytes, int bucketsInFlight,
                                Bytes hcclBufferSize);

// The parameters of model layer `layer` on one device under a layout: its
// dense part / tp, and its experts / (ep x tp) (the part the expert-DP
// group reduces).
struct DeviceParameters {
  std::uint64_t dense = 0, experts = 0;
};
DeviceParameters deviceParameters(const ModelSpec& model, const ParallelLayout& layout, std::size_t layer);

// Under a parallel layout, per device of the stage that needs the most:
// the stage's parameters / tp in weights, gradients and optimizer state,
// the optimizer state and master weights / dp from ZeRO 1 (the experts' /
// (dp / ep)), the gradients
// (and accumulation buffer) too from ZeRO 2, the weights too from ZeRO 3
// (plus whole layers gathered: the one running, and the next where the
// gathers prefetch it, training.overlap.param_prefetch); the activations of the
// micro-batches the pipeline schedule holds at once (a transformer's by
// TransformerShape::blockActivations; other models' share of
// activations_per_sample / tp); bucket buffers of the stage's gradients;
// HCCL's two buffers per communicator the device is in (TP, PP, DP).
MemoryBreakdown parallelMemoryPerDevice(const ModelSpec& model, const ParallelLayout& layout, Bytes bucketBytes,
                                        int bucketsInFlight, Bytes hcclBufferSize, bool prefetched);

} // namespace collsim
