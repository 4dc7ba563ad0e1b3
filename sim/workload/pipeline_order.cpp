#include "sim/workload/pipeline_order.h"

#include <algorithm>

namespace collsim {

// Megatron-LM's forward_backward_pipelining_with_interleaving: virtual
// step k runs chunk (k mod p v) / p (backward: counted from the last) on
// micro-batch (k / p v) p + k mod p.
static std::vector<PipelineTask> interleavedOrder(int stages, int microBatches, int stage, int chunks) {
  const int group = stages * chunks, total = microBatches * chunks;
  auto task = [&](int k, bool forward) {
    int chunk = k % group / stages;
    return PipelineTask{forward, k / group * stages + k % stages, forward ? chunk : chunks - 1 - chunk};
  };
  std::vector<PipelineTask> out;
  int warmup = std::min(total, 2 * (stages - stage - 1) + (chunks - 1) * stages);
  int forwards = 0, backwards = 0;
  while (forwards < warmup) out.push_back(task(forwards++, true));
  while (forwards < total) {
    out.push_back(task(forwards++, true));
    out.push_back(task(backwards++, false));
  }
  while (backwards < total) out.push_back(task(backwards++, false));
  return out;
}

std::vector<PipelineTask> stageOrder(PipelineKind kind, int stages, int microBatches, int stage, int chunks) {
  if (kind == PipelineKind::Interleaved) return interleavedOrder(stages, microBatches, stage, chunks);
  std::vector<PipelineTask> out;
  int warmup = kind == PipelineKind::GPipe ? microBatches : std::min(stages - stage - 1, microBatches);
  int forwards = 0, backwards = 0;
  while (forwards < warmup) out.push_back({true, forwards++});
  while (forwards < microBatches) {
    out.push_back({true, forwards++});
    out.push_back({false, backwards++});
  }
  while (backwards < microBatches) out.push_back({false, backwards++});
  return out;
}

std::vector<LayerRange> splitLayers(const ModelSpec& model, int stages, const std::vector<int>& counts) {
  std::vector<LayerRange> out;
  std::size_t n = model.layers.size();
  if (!model.transformer && !counts.empty()) {
    std::size_t first = 0;
    for (int c : counts) out.push_back({first, first + std::size_t(c)}), first += std::size_t(c);
    return out;
  }
  if (model.transformer) { // embeddings, blocks, head
    const std::size_t blocks = std::size_t(model.transformer->layers), k = std::size_t(stages);
    std::vector<std::size_t> count(k, blocks / k);
    std::size_t extra = blocks % k;
    for (std::size_t s = 1; s + 1 < k && extra > 0; ++s, --extra) ++count[s]; // the middle first
    for (std::size_t s : {std::size_t(0), k - 1})
      if (extra > 0) ++count[s], --extra;
    if (!counts.empty()) count.assign(counts.begin(), counts.end());
    std::size_t first = 1; // after the embedding
    for (std::size_t s = 0; s < k; ++s) {
      out.push_back({s == 0 ? 0 : first, s + 1 == k ? n : first + count[s]});
      first += count[s];
    }
    return out;
  }
  for (int s = 0; s < stages; ++s) out.push_back({n * std::size_t(s) / std::size_t(stages), n * std::size_t(s + 1) / std::size_t(stages)});
  return out;
}

int activationsInFlight(PipelineKind kind, int stages, int microBatches, int stage, int chunks) {
  int held = 0, most = 0;
  for (const PipelineTask& t : stageOrder(kind, stages, microBatches, stage, chunks))
    most = std::max(most, held += t.forward ? 1 : -1);
  return kind == PipelineKind::Interleaved ? most : most * chunks;
}

} // namespace collsim
