// Hierarchical AllReduce: see hierarchical.h for the phases and bytes.
#include <algorithm>

#include "algorithms/core/compose.h"
#include "algorithms/hierarchical/hierarchical.h"

namespace collsim {
namespace {

// `level` built over every group of `groups`, each on its own part of the view.
SchedulePtr overGroups(const AlgorithmEntry& level, const GroupView& g, const std::vector<std::vector<int>>& groups,
                       const std::vector<Block>& views, const CollectiveSpec& spec) {
  std::vector<SchedulePtr> parts;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    GroupView sub = g.sub(groups[i], views[i]);
    CollectiveSpec subSpec = spec;
    subSpec.ranks = sub.size();
    subSpec.devicesPerServer = 0;
    subSpec.root = 0;
    parts.push_back(level.build(sub, subSpec));
  }
  return std::make_unique<DisjointSchedule>(std::move(parts));
}

struct Levels {
  AlgorithmEntry rs, ar, ag;
};

// The three phases over one view of the buffer.
SchedulePtr threePhases(const Levels& lv, const GroupView& g, const CollectiveSpec& spec) {
  const int D = spec.devicesPerServer, S = g.size() / D;
  std::vector<std::vector<int>> servers(static_cast<std::size_t>(S)), peers(static_cast<std::size_t>(D));
  for (int s = 0; s < S; ++s)
    for (int j = 0; j < D; ++j) {
      servers[s].push_back(g.global(s * D + j));
      peers[j].push_back(g.global(s * D + j));
    }
  std::vector<Block> whole(std::size_t(S), g.all()), blocks;
  for (int j = 0; j < D; ++j) blocks.push_back(blockOf(g.count(), D, j));
  std::vector<SchedulePtr> phases;
  phases.push_back(overGroups(lv.rs, g, servers, whole, spec));
  phases.push_back(overGroups(lv.ar, g, peers, blocks, spec));
  phases.push_back(overGroups(lv.ag, g, servers, whole, spec));
  return std::make_unique<SequenceSchedule>(std::move(phases));
}

std::string normalize(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (name == "na") return "ring"; // level 0 follows the hardware; on HCCS rings that is ring
  if (name == "h-d_r" || name == "hd") return "rhd";
  return name;
}

} // namespace

bool parseHierarchyName(const std::string& name, HierarchyChoice& out) {
  auto split = [](const std::string& s, char sep, std::string& a, std::string& b) {
    auto at = s.find(sep);
    if (at == std::string::npos) return false;
    a = s.substr(0, at);
    b = s.substr(at + 1);
    return !a.empty() && !b.empty();
  };
  std::string head, rest, a, b;
  if (name.rfind("level0:", 0) == 0 && split(name, ';', a, b) && b.rfind("level1:", 0) == 0) {
    out = {normalize(a.substr(7)), normalize(b.substr(7)), 1};
    return true;
  }
  if (!split(name, ':', head, rest) || (head != "hier" && head != "hierpipe") || !split(rest, '+', a, b)) return false;
  out = {normalize(a), normalize(b), head == "hierpipe" ? 4 : 1};
  return true;
}

std::optional<AlgorithmEntry> hierarchicalAllReduceEntry(const HierarchyChoice& c, const std::string& name) {
  auto rs = findAlgorithm(Collective::ReduceScatter, c.intra), ag = findAlgorithm(Collective::AllGather, c.intra);
  auto ar = findAlgorithm(Collective::AllReduce, c.inter);
  if (!rs || !ag || !ar) return std::nullopt;
  Levels lv{*rs, *ar, *ag};
  int slices = c.slices;
  AlgorithmEntry e;
  e.op = Collective::AllReduce;
  e.name = name;
  e.summary = "hierarchical: " + c.intra + " reduce-scatter in each server, " + c.inter +
              " all-reduce between servers, " + c.intra + " all-gather" + (slices > 1 ? ", pipelined" : "");
  e.formula = "level-0 reduce-scatter(n) + level-1 all-reduce(n/D) + level-0 all-gather(n)";
  e.build = [lv, slices](const GroupView& g, const CollectiveSpec& spec) -> SchedulePtr {
    if (slices <= 1) return threePhases(lv, g, spec);
    std::vector<SchedulePtr> streams;
    for (int k = 0; k < slices; ++k) streams.push_back(threePhases(lv, g.sub(blockOf(g.count(), slices, k)), spec));
    return std::make_unique<StreamsSchedule>(std::move(streams));
  };
  // With one cost model for both levels (the selector compares levels
  // with their own models).
  e.cost = [lv](int p, double n, const CostModel& m) { return lv.rs.cost(p, n, m) + lv.ar.cost(p, n, m) + lv.ag.cost(p, n, m); };
  e.unsupported = [](const CollectiveSpec& spec) -> std::string {
    int D = spec.devicesPerServer;
    if (D <= 0) return "needs a cluster of several servers (devices per server unknown)";
    if (spec.ranks % D) return "the ranks do not fill whole servers";
    return {};
  };
  return e;
}

} // namespace collsim
