#include "sim/workload/reference_figures.h"

namespace collsim {

const std::vector<ReferenceFigure>& referenceFigures() {
  static const std::vector<ReferenceFigure> figures = {
      {"allreduce_ms", "mean AllReduce time (ms)", [](const StepResult& r) { return toMicroseconds(r.meanAllReduce()) / 1e3; }},
      {"comm_share", "communication share of the step", [](const StepResult& r) { return r.communicationShare(); }},
      {"samples_per_s", "throughput (samples/s, all devices)", [](const StepResult& r) { return r.samplesPerSecond(); }},
      {"memory_gib", "peak memory per device (GiB)", [](const StepResult& r) { return double(r.memory.total()) / double(1ULL << 30); }},
      {"step_ms", "step time (ms)", [](const StepResult& r) { return toMicroseconds(r.iteration) / 1e3; }},
      {"mfu", "model FLOPs utilization", [](const StepResult& r) { return r.mfu(); }},
      {"tokens_per_s", "throughput (tokens/s, all devices)", [](const StepResult& r) { return r.tokensPerSecond(); }},
  };
  return figures;
}

const ReferenceFigure* findReferenceFigure(const std::string& key) {
  for (const auto& f : referenceFigures())
    if (key == f.key) return &f;
  return nullptr;
}

} // namespace collsim
