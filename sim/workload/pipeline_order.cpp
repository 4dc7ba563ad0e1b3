#include "sim/workload/pipeline_order.h"

#include <algorithm>

namespace collsim {

std::vector<PipelineTask> stageOrder(PipelineKind kind, int stages, int microBatches, int stage) {
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

std::vector<LayerRange> splitLayers(const ModelSpec& model, int stages) {
  std::vector<LayerRange> out;
  std::size_t n = model.layers.size();
  if (model.transformer) { // embeddings, blocks, head
    std::size_t blocks = std::size_t(model.transformer->layers), per = blocks / std::size_t(stages);
    for (int s = 0; s < stages; ++s)
      out.push_back({s == 0 ? 0 : 1 + std::size_t(s) * per, s == stages - 1 ? n : 1 + std::size_t(s + 1) * per});
    return out;
  }
  for (int s = 0; s < stages; ++s) out.push_back({n * std::size_t(s) / std::size_t(stages), n * std::size_t(s + 1) / std::size_t(stages)});
  return out;
}

int activationsInFlight(PipelineKind kind, int stages, int microBatches, int stage) {
  int held = 0, most = 0;
  for (const PipelineTask& t : stageOrder(kind, stages, microBatches, stage)) most = std::max(most, held += t.forward ? 1 : -1);
  return most;
}

} // namespace collsim
