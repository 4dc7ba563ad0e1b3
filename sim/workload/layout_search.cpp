#include "sim/workload/layout_search.h"

#include <cstdio>

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

// Why the layout cannot run, or "".
std::string invalidity(const Cluster& cluster, const ModelSpec& model, const PlanSpace& space, const ParallelLayout& l,
                       int microBatch) {
  auto n = [](auto v) { return std::to_string(v); };
  const int devices = cluster.ranks();
  if (model.transformer && model.transformer->heads % l.tp != 0)
    return "tp " + n(l.tp) + " does not divide the " + n(model.transformer->heads) + " heads";
  if (model.transformer && model.transformer->layers % l.pp != 0)
    return "pp " + n(l.pp) + " does not divide the " + n(model.transformer->layers) + " layers";
  if (!model.transformer && (l.tp > 1 || l.pp > 1)) return "tp and pp need a model given by its transformer shape";
  if (!space.tpAcrossServers && l.tp > 1 && cluster.devicesPerServer % l.tp != 0)
    return "tp " + n(l.tp) + " would span servers of " + n(cluster.devicesPerServer) + " devices";
  if (devices % (l.tp * l.pp) != 0) return "tp x pp = " + n(l.tp * l.pp) + " does not divide the " + n(devices) + " devices";
  if (l.ep > 1) {
    int experts = model.transformer ? model.transformer->experts : 1;
    if (experts % l.ep != 0) return "ep " + n(l.ep) + " does not divide the " + n(experts) + " experts";
    if (l.dp % l.ep != 0) return "ep " + n(l.ep) + " does not divide dp " + n(l.dp);
    if (l.zero == 3) return "zero 3 with expert parallelism is not modelled yet";
  }
  std::uint64_t perStep = std::uint64_t(microBatch) * std::uint64_t(l.dp);
  if (space.globalBatch % perStep != 0)
    return "the global batch " + n(space.globalBatch) + " is not a multiple of micro-batch x dp = " + n(microBatch) +
           " x " + n(l.dp);
  if (l.schedule == PipelineKind::Interleaved && l.pp > 1) {
    std::uint64_t m = space.globalBatch / perStep;
    if (model.transformer && model.transformer->layers % (l.pp * l.virtualStages) != 0)
      return "pp x virtual_stages = " + n(l.pp * l.virtualStages) + " does not divide the " +
             n(model.transformer->layers) + " layers";
    if (m % std::uint64_t(l.pp) != 0)
      return "interleaved: " + n(m) + " micro-batches are not a multiple of pp " + n(l.pp);
  }
  return "";
}

} // namespace

TrainingSpec trainingFor(const TrainingSpec& base, const LayoutCandidate& c) {
  TrainingSpec t = base;
  t.model.microBatch = c.microBatch;
  t.parallel = c.layout;
  t.accumulation = c.layout.microBatches;
  return t;
}

std::vector<LayoutCandidate> enumerateLayouts(const Cluster& cluster, const TrainingSpec& training,
                                              const PlanSpace& space, Bytes hcclBufferSize) {
  const ModelSpec& model = training.model;
  const TransformerShape* shape = model.transformer ? &*model.transformer : nullptr;
  std::vector<int> tps = space.tp, pps = space.pp, microBatches = space.microBatch;
  if (tps.empty()) tps = shape ? divisorsOf(shape->heads, space.tpAcrossServers ? cluster.ranks() : cluster.devicesPerServer) : std::vector<int>{1};
  if (pps.empty()) pps = shape ? divisorsOf(shape->layers, cluster.ranks()) : std::vector<int>{1};
  if (microBatches.empty()) microBatches = {model.microBatch};
  std::vector<int> eps = space.ep;
  if (eps.empty()) eps = shape && shape->experts > 1 ? divisorsOf(shape->experts, cluster.ranks()) : std::vector<int>{1};
  std::vector<LayoutCandidate> out;
  for (int tp : tps)
    for (int pp : pps) {
      if (space.tp.empty() && cluster.devicesPerServer % tp != 0 && !space.tpAcrossServers) continue;
      if (space.pp.empty() && cluster.ranks() % (tp * pp) != 0) continue; // not a layout of this cluster at all
      for (int ep : eps)
      for (int b : microBatches)
        for (int zero : space.zero)
          for (PipelineKind kind : space.schedules) {
            LayoutCandidate c;
            ParallelLayout& l = c.layout;
            l.tp = tp, l.pp = pp, l.dp = std::max(1, cluster.ranks() / (tp * pp));
            l.ep = ep, l.expertImbalance = space.expertImbalance;
            l.zero = zero, l.schedule = kind, l.sequenceParallel = space.sequenceParallel && tp > 1;
            if (kind == PipelineKind::Interleaved) l.virtualStages = space.virtualStages;
            c.microBatch = b;
            if (zero > 0 && l.dp == 1) continue;             // nothing to shard: the zero-0 layout
            if (pp == 1 && kind != space.schedules.front()) continue; // no pipeline: one schedule is enough
            c.pruned = invalidity(cluster, model, space, l, b);
            if (c.pruned.empty()) {
              l.microBatches = int(space.globalBatch / (std::uint64_t(b) * std::uint64_t(l.dp)));
              TrainingSpec t = trainingFor(training, c);
              c.memory = parallelMemoryPerDevice(t.model, l, t.bucket, std::max(1, t.pipeline), hcclBufferSize);
              if (cluster.device.memory > 0 && c.memory.total() > cluster.device.memory)
                c.pruned = "needs " + gibText(c.memory.total()) + " a device, which has " + gibText(cluster.device.memory);
            }
            out.push_back(std::move(c));
          }
    }
  return out;
}

} // namespace collsim
