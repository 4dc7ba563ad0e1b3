#include "sim/workload/layout_search.h"

#include <cstdio>

#include "sim/workload/parallel_step.h"

namespace collsim {
namespace {

std::vector<int> divisorsOf(int n, int atMost) {
  std::vector<int> out;
  for (int d = 1; d <= n && d <= atMost; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

std::string gibText(Bytes b) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f GiB", double(b) / double(1ULL << 30));
  return s;
}

// Why the candidate cannot run, or "" (setting its micro-batch count):
// what a plan asks beyond the layout (dp from the devices, the global
// batch, TP inside a server), and the layout's own checks, the ones `run`
// makes (checkParallelLayout).
std::string whyNot(const Cluster& cluster, const TrainingSpec& training, const PlanSpace& space, LayoutCandidate& c) {
  auto n = [](auto v) { return std::to_string(v); };
  ParallelLayout& l = c.layout;
  if (cluster.ranks() % (l.tp * l.cp * l.pp) != 0)
    return (l.cp > 1 ? "tp x cp x pp = " : "tp x pp = ") + n(l.tp * l.cp * l.pp) + " does not divide the " +
           n(cluster.ranks()) + " devices";
  std::uint64_t perStep = std::uint64_t(c.microBatch) * std::uint64_t(l.dp);
  if (space.globalBatch % perStep != 0)
    return "the global batch " + n(space.globalBatch) + " is not a multiple of micro-batch x dp = " + n(c.microBatch) +
           " x " + n(l.dp);
  if (space.globalBatch / perStep > std::uint64_t(1) << 30)
    return "the global batch " + n(space.globalBatch) + " makes " + n(space.globalBatch / perStep) +
           " micro-batches a step, more than collsim simulates";
  l.microBatches = int(space.globalBatch / perStep);
  try {
    checkParallelLayout(cluster, trainingFor(training, c));
  } catch (const InputError& e) {
    return e.what();
  }
  if (!space.tpAcrossServers && l.tp > 1 && cluster.devicesPerServer % l.tp != 0)
    return "tp " + n(l.tp) + " would span servers of " + n(cluster.devicesPerServer) + " devices";
  return "";
}

} // namespace

TrainingSpec trainingFor(const TrainingSpec& base, const LayoutCandidate& c) {
  TrainingSpec t = base;
  t.model.microBatch = c.microBatch;
  if (c.recomputation && t.model.transformer) {
    t.model.transformer->recomputation = *c.recomputation;
    t.model.activationsPerSample = t.model.transformer->activationsPerSample();
  }
  t.parallel = c.layout;
  t.accumulation = c.layout.microBatches;
  return t;
}

std::vector<LayoutCandidate> enumerateLayouts(const Cluster& cluster, const TrainingSpec& training,
                                              const PlanSpace& space, Bytes communicatorBuffer) {
  const ModelSpec& model = training.model;
  const TransformerShape* shape = model.transformer ? &*model.transformer : nullptr;
  std::vector<int> tps = space.tp, pps = space.pp, microBatches = space.microBatch;
  if (tps.empty()) tps = shape ? divisorsOf(shape->heads, space.tpAcrossServers ? cluster.ranks() : cluster.devicesPerServer) : std::vector<int>{1};
  if (pps.empty()) pps = shape ? divisorsOf(shape->layers, cluster.ranks()) : std::vector<int>{1};
  if (microBatches.empty()) microBatches = {model.microBatch};
  std::vector<int> eps = space.ep;
  if (eps.empty()) eps = shape && shape->experts > 1 ? divisorsOf(shape->experts, cluster.ranks()) : std::vector<int>{1};
  std::vector<std::optional<Recomputation>> recomputations;
  for (Recomputation r : space.recomputation) recomputations.push_back(r);
  if (recomputations.empty()) recomputations.push_back(std::nullopt);
  std::vector<LayoutCandidate> out;
  for (int tp : tps)
    for (int cp : space.cp)
      for (int pp : pps) {
        if (space.tp.empty() && cluster.devicesPerServer % tp != 0 && !space.tpAcrossServers) continue;
        if (space.pp.empty() && cluster.ranks() % (tp * cp * pp) != 0) continue; // not a layout of this cluster at all
        for (int ep : eps)
          for (int b : microBatches)
            for (int zero : space.zero)
              for (PipelineKind kind : space.schedules)
                for (int v : kind == PipelineKind::Interleaved && pp > 1 ? space.virtualStages : std::vector<int>{1})
                  for (const auto& recomputation : recomputations) {
                    if (zero > 0 && cluster.ranks() <= tp * pp) continue;   // dp 1, nothing to shard: the zero-0 layout
                    if (pp == 1 && kind != space.schedules.front()) continue; // no pipeline: one schedule is enough
                    LayoutCandidate c;
                    ParallelLayout& l = c.layout;
                    l.tp = tp, l.cp = cp, l.pp = pp, l.dp = std::max(1, cluster.ranks() / (tp * cp * pp));
                    l.ep = ep, l.expertImbalance = space.expertImbalance;
                    l.zero = zero, l.schedule = kind, l.sequenceParallel = space.sequenceParallel && tp > 1;
                    if (kind == PipelineKind::Interleaved) l.virtualStages = std::max(2, v);
                    c.microBatch = b;
                    c.recomputation = recomputation;
                    c.pruned = whyNot(cluster, training, space, c);
                    if (c.pruned.empty()) {
                      TrainingSpec t = trainingFor(training, c);
                      c.memory = parallelMemoryPerDevice(t.model, l, t.bucket, std::max(1, t.pipeline), communicatorBuffer,
                                                         t.paramPrefetch);
                      if (cluster.device.memory > 0 && c.memory.total() > cluster.device.memory)
                        c.pruned = "needs " + gibText(c.memory.total()) + " a device, which has " +
                                   gibText(cluster.device.memory);
                    }
                    out.push_back(std::move(c));
                  }
      }
  return out;
}

} // namespace collsim
