#include "sim/selector/selector.h"

#include <algorithm>
#include <limits>

#include "algorithms/core/registry.h"
#include "sim/run/simulate.h"

namespace collsim {

std::vector<std::string> candidates(Collective op, const Cluster& cluster) {
  CollectiveSpec spec = layoutOf(cluster, op);
  std::vector<std::string> out;
  auto consider = [&](const std::string& name) {
    auto e = findAlgorithm(op, name);
    if (e && e->unsupported(spec).empty()) out.push_back(name);
  };
  for (const auto& name : algorithmNames(op)) consider(name);
  if (cluster.servers > 1) {
    for (const char* intra : {"ring", "mesh"}) {
      for (const char* inter : {"ring", "rhd", "nhr", "nb"}) {
        consider(std::string("hier:") + intra + "+" + inter);
        consider(std::string("hierpipe:") + intra + "+" + inter);
      }
    }
  }
  return out;
}

SelectionContext contextOf(Collective op, Bytes bytes, const Cluster& cluster) {
  return {op, bytes, cluster.ranks(), cluster.servers, cluster.devicesPerServer, cluster.hccsShape, cluster.fabric};
}

CostModel costModelOf(const Cluster& cluster) {
  Time latency = 0;
  Bandwidth slowest = std::numeric_limits<Bandwidth>::max();
  for (const auto& l : cluster.links) {
    latency = std::max(latency, l.params.latency);
    slowest = std::min(slowest, l.params.bandwidth);
  }
  double hops = cluster.servers > 1 ? 2 : 1; // device -> switch -> device between servers
  CostModel m;
  m.alpha = hops * toSeconds(latency);
  m.beta = cluster.links.empty() ? 0 : 1.0 / double(slowest);
  m.gamma = cluster.device.reduceBandwidth ? 1.0 / double(cluster.device.reduceBandwidth) : 0;
  return m;
}

Choice choose(const SelectorRules& rules, Collective op, Bytes bytes, const Cluster& cluster) {
  SelectionContext c = contextOf(op, bytes, cluster);
  if (const Rule* r = rules.firstMatch(c)) {
    auto e = findAlgorithm(op, r->algorithm);
    if (e && e->unsupported(layoutOf(cluster, op)).empty()) return {r->algorithm, r->name, r->source};
  }
  CostModel m = costModelOf(cluster);
  std::string best;
  double bestCost = 0;
  for (const auto& name : candidates(op, cluster)) {
    double cost = findAlgorithm(op, name)->cost(cluster.ranks(), double(bytes), m);
    if (best.empty() || cost < bestCost) best = name, bestCost = cost;
  }
  return {best, "fallback: closed-form", "lowest alpha-beta-gamma cost"};
}

WorkEstimate estimateCandidates(Collective op, Bytes bytes, const ClusterSetup& cluster, const WorkLimits* stop) {
  WorkEstimate total;
  const CollectiveEstimator estimate(cluster.cluster);
  for (const auto& name : candidates(op, cluster.cluster)) {
    if (stopSumming(total, stop)) break;
    total.addSequential(estimateOne(estimate, op, bytes, cluster, name));
  }
  return total;
}

WorkEstimate estimateOne(const CollectiveEstimator& estimate, Collective op, Bytes bytes, const ClusterSetup& cluster,
                         const std::string& algorithm) {
  AlgorithmEntry e = *findAlgorithm(op, algorithm);
  CollectiveWork w{op, &e, bytes, 4, 0, Bytes(1) << 20, Fidelity::Fast, 0, cluster.roce.mtu, cluster.roce.queuePairs};
  return estimate(w);
}

double simulateOne(Collective op, Bytes bytes, const ClusterSetup& cluster, const std::string& algorithm) {
  AlgorithmEntry e = *findAlgorithm(op, algorithm);
  RunRequest req{op, &e, DataType::Float32, bytes, Bytes(1) << 20, false};
  req.roce = cluster.roce;
  req.library = cluster.library;
  return toSeconds(simulateCollective(cluster.cluster, req).execution.finish);
}

std::vector<CandidateTime> simulateCandidates(Collective op, Bytes bytes, const ClusterSetup& cluster) {
  std::vector<CandidateTime> out;
  for (const auto& name : candidates(op, cluster.cluster)) out.push_back({name, simulateOne(op, bytes, cluster, name)});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
  return out;
}

} // namespace collsim
