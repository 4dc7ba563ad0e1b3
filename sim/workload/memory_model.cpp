#include "sim/workload/memory_model.h"

#include <algorithm>

#include "sim/workload/pipeline_order.h"

namespace collsim {

Bytes communicatorBufferBytes(const LibraryModel& library, Bytes hcclBufferSize) {
  if (library.kind != LibraryKind::Nccl) return 2 * hcclBufferSize;
  double perChannel = 0;
  for (const ProtocolModel& p : library.protocols)
    perChannel += double(std::max(1, p.slots)) * double(p.chunk) / std::max(p.dataShare, 1e-9);
  return Bytes(std::max(1, library.channels)) * Bytes(perChannel);
}

// The activations a stage holds: `chunkPasses` chunk forwards at once, each
// on 1/chunks of the stage's `layers`.
static Bytes stageActivations(const ModelSpec& model, const ParallelLayout& l, const std::vector<std::size_t>& layers,
                              int chunkPasses, int chunks) {
  const Bytes b = Bytes(model.microBatch);
  if (!model.transformer) {
    double share = double(layers.size()) / double(std::max<std::size_t>(1, model.layers.size()));
    return Bytes(double(model.activationsPerSample) * share / l.tp / chunks) * b * Bytes(chunkPasses);
  }
  const TransformerShape& t = *model.transformer;
  Bytes blocks = 0;
  for (std::size_t i : layers) blocks += model.layers[i].name.rfind("block.", 0) == 0;
  // Under context parallelism a rank holds its 1 / cp of the sequence's.
  Bytes whole = t.blockActivations(l.tp, l.sequenceParallel) / Bytes(l.cp);
  Bytes perPass = blocks / Bytes(chunks); // blocks of one chunk
  if (t.recomputation != Recomputation::Full) return Bytes(chunkPasses) * b * perPass * whole;
  // Each block's input per micro-batch held, plus one block recomputed at a time.
  return Bytes(chunkPasses) * b * perPass * t.blockInput(l.tp, l.sequenceParallel) / Bytes(l.cp) +
         (blocks ? b * whole : 0);
}

DeviceParameters deviceParameters(const ModelSpec& model, const ParallelLayout& l, std::size_t layer) {
  std::uint64_t all = model.layers[layer].parameters, experts = 0;
  const TransformerShape* t = model.transformer ? &*model.transformer : nullptr;
  if (t && t->experts > 1 && model.layers[layer].name.rfind("block.", 0) == 0)
    experts = std::uint64_t(t->experts) * t->expertParameters();
  return {(all - experts) / std::uint64_t(l.tp), experts / std::uint64_t(l.ep) / std::uint64_t(l.tp)};
}

MemoryBreakdown parallelMemoryPerDevice(const ModelSpec& model, const ParallelLayout& l, Bytes bucketBytes,
                                        int bucketsInFlight, Bytes communicatorBuffer, bool prefetched) {
  const Precision& x = model.precision;
  const int communicators =
      (l.tp > 1) + (l.pp > 1) + (l.gradientReplicas() > 1) + (l.ep > 1) + (l.ep > 1 && l.ep < l.dp) + (l.cp > 1);
  MemoryBreakdown most;
  const int chunks = l.schedule == PipelineKind::Interleaved && l.pp > 1 ? l.virtualStages : 1;
  const std::vector<LayerRange> ranges = splitLayers(model, l.pp * chunks, l.stageLayers); // chunk k of stage s: k pp + s
  for (int stage = 0; stage < l.pp; ++stage) {
    std::vector<std::size_t> layers;
    for (int k = 0; k < chunks; ++k)
      for (std::size_t i = ranges[std::size_t(k * l.pp + stage)].first; i < ranges[std::size_t(k * l.pp + stage)].end; ++i)
        layers.push_back(i);
    DeviceParameters d;
    std::uint64_t largest = 0;
    for (std::size_t i : layers) {
      DeviceParameters layer = deviceParameters(model, l, i);
      d.dense += layer.dense, d.experts += layer.experts;
      largest = std::max(largest, layer.dense + layer.experts);
    }
    const std::uint64_t p = d.dense + d.experts;
    // 1/(dp cp) of the dense state, 1/(dp/ep) of the experts'.
    auto shard = [&](std::uint64_t bytesPerParameter, bool sharded) {
      return sharded ? d.dense * bytesPerParameter / Bytes(l.gradientReplicas()) +
                           d.experts * bytesPerParameter / Bytes(l.dp / l.ep)
                     : p * bytesPerParameter;
    };
    MemoryBreakdown m;
    // ZeRO 3 also gathers a layer (and the next, where prefetched) whole.
    const Bytes gathered = l.zero >= 3 ? (prefetched ? 2 : 1) * largest * x.weights : 0;
    m.weights = shard(x.weights, l.zero >= 3) + gathered;
    m.masterWeights = shard(x.masterWeights, l.zero >= 1);
    m.gradients = shard(x.gradients, l.zero >= 2);
    m.optimizerState = shard(x.optimizerState, l.zero >= 1);
    m.accumulationBuffer = l.microBatches > 1 ? shard(x.accumulation, l.zero >= 2) : 0;
    int inFlight = activationsInFlight(l.schedule, l.pp, l.microBatches, stage, chunks);
    m.activations = stageActivations(model, l, layers, inFlight, chunks);
    m.bucketBuffers = Bytes(bucketsInFlight) * std::min(bucketBytes, p * x.gradients);
    m.communicatorBuffers = communicatorBuffer * Bytes(std::max(1, communicators));
    if (m.total() > most.total()) most = m;
  }
  return most;
}

} // namespace collsim
