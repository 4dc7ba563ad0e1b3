#include "sim/workload/memory_model.h"

#include <algorithm>

#include "sim/workload/pipeline_order.h"

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

static Bytes stageActivations(const ModelSpec& model, const ParallelLayout& l, LayerRange range, int inFlight) {
  const Bytes b = Bytes(model.microBatch);
  if (!model.transformer) {
    double share = double(range.end - range.first) / double(std::max<std::size_t>(1, model.layers.size()));
    return Bytes(double(model.activationsPerSample) * share / l.tp) * b * Bytes(inFlight);
  }
  const TransformerShape& t = *model.transformer;
  Bytes blocks = 0;
  for (std::size_t i = range.first; i < range.end; ++i) blocks += model.layers[i].name.rfind("block.", 0) == 0;
  Bytes whole = t.blockActivations(l.tp, l.sequenceParallel);
  if (!t.fullRecomputation) return Bytes(inFlight) * b * blocks * whole;
  // Each block's input per micro-batch held, plus one block recomputed at a time.
  return Bytes(inFlight) * b * blocks * t.blockInput(l.tp, l.sequenceParallel) + (blocks ? b * whole : 0);
}

MemoryBreakdown parallelMemoryPerDevice(const ModelSpec& model, const ParallelLayout& l, Bytes bucketBytes,
                                        int bucketsInFlight, Bytes hcclBufferSize) {
  const Precision& x = model.precision;
  const Bytes dp = Bytes(l.dp);
  const int communicators = (l.tp > 1) + (l.pp > 1) + (l.dp > 1);
  MemoryBreakdown most;
  int stage = 0;
  for (LayerRange range : splitLayers(model, l.pp)) {
    std::uint64_t p = 0;
    for (std::size_t i = range.first; i < range.end; ++i) p += model.layers[i].parameters;
    p /= std::uint64_t(l.tp);
    MemoryBreakdown m;
    m.weights = p * x.weights;
    m.masterWeights = p * x.masterWeights / (l.zero >= 1 ? dp : 1);
    m.gradients = p * x.gradients / (l.zero >= 2 ? dp : 1);
    m.optimizerState = p * x.optimizerState / (l.zero >= 1 ? dp : 1);
    m.accumulationBuffer = l.microBatches > 1 ? p * x.accumulation / (l.zero >= 2 ? dp : 1) : 0;
    int inFlight = activationsInFlight(l.schedule, l.pp, l.microBatches, stage++);
    m.activations = stageActivations(model, l, range, inFlight);
    m.bucketBuffers = Bytes(bucketsInFlight) * std::min(bucketBytes, p * x.gradients);
    m.communicatorBuffers = 2 * hcclBufferSize * Bytes(std::max(1, communicators));
    if (m.total() > most.total()) most = m;
  }
  return most;
}

} // namespace collsim
