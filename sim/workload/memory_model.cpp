#include "sim/workload/memory_model.h"

#include <algorithm>

namespace collsim {

MemoryBreakdown memoryPerDevice(const ModelSpec& model, int accumulation, Bytes bucketBytes, int bucketsInFlight,
                                Bytes hcclBufferSize) {
  const std::uint64_t p = model.parameters();
  const Precision& x = model.precision;
  MemoryBreakdown m;
  m.weights = p * x.weights;
  m.masterWeights = p * x.masterWeights;
  m.gradients = p * x.gradients;
  m.optimizerState = p * x.optimizerState;
  m.accumulationBuffer = accumulation > 1 ? p * x.accumulation : 0;
  m.activations = model.activationsPerSample * Bytes(model.microBatch);
  m.bucketBuffers = Bytes(bucketsInFlight) * std::min(bucketBytes, model.gradientBytes());
  m.communicatorBuffers = 2 * hcclBufferSize;
  return m;
}

} // namespace collsim
