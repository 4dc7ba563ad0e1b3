// Device memory of data-parallel training, per device.
//
// Every device holds the whole model: weights (and an fp32 master copy under
// mixed precision), one gradient per parameter, the optimizer state, and the
// activations of one micro-batch for its backward pass (micro-batches of an
// accumulation run one after another, so accumulation adds activations of
// none; it adds a separate accumulation buffer only when the model keeps
// one). Communication adds one staging buffer per bucket in flight (a
// pipeline of depth d holds d) and the library's buffers of each
// communicator (communicatorBufferBytes).
#pragma once

#include "sim/run/library_model.h"
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

// The device memory one communicator's buffers hold on a device:
// - HCCL (and the ideal library, collsim's Ascend default): two CCL buffers,
//   in and out, of HCCL_BUFFSIZE each (hccl-facts.md; 200 MB by default);
// - NCCL: per channel, a buffer per protocol for the peer it receives from
//   (NCCL's transport/p2p.cc and net.cc size each by comm->buffSizes), of
//   NCCL_STEPS slots: slots x chunk / data share, which is NCCL's default
//   512 KiB (LL), 4,915,200 B (LL128) and 4 MiB (Simple, NCCL_BUFFSIZE) from
//   library_model.cpp's protocols. The ring's connection only: NCCL
//   connects trees and NVLS when an algorithm first runs on them
//   (NCCL_RUNTIME_CONNECT), and a send across servers stages as much again
//   in the proxy's memory; neither is counted.
Bytes communicatorBufferBytes(const LibraryModel& library, Bytes hcclBufferSize);

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
// `communicatorBuffer` for each communicator the device is in (TP, PP, DP,
// EP, CP).
MemoryBreakdown parallelMemoryPerDevice(const ModelSpec& model, const ParallelLayout& layout, Bytes bucketBytes,
                                        int bucketsInFlight, Bytes communicatorBuffer, bool prefetched);

} // namespace collsim
