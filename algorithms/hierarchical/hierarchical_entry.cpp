// Hierarchical algorithms as registry entries: names, level lookup, checks.
#include <algorithm>

#include "algorithms/core/chunk_loops.h"
#include "algorithms/core/compose.h"
#include "algorithms/core/pipeline.h"
#include "algorithms/hierarchical/hierarchical.h"

namespace collsim {
namespace {

std::string normalize(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (name == "na") return "ring"; // level 0 follows the hardware; on HCCS rings that is ring
  if (name == "h-d_r" || name == "hd") return "rhd";
  return name;
}

bool split(const std::string& s, char sep, std::string& a, std::string& b) {
  auto at = s.find(sep);
  if (at == std::string::npos) return false;
  a = s.substr(0, at);
  b = s.substr(at + 1);
  return !a.empty() && !b.empty();
}

// The flat collectives each level runs, per hierarchical collective.
struct LevelCollectives {
  std::vector<Collective> intra, inter;
};
std::optional<LevelCollectives> levelCollectives(Collective op) {
  switch (op) {
  case Collective::AllReduce:
    return LevelCollectives{{Collective::ReduceScatter, Collective::AllGather}, {Collective::AllReduce}};
  case Collective::ReduceScatter: return LevelCollectives{{Collective::ReduceScatter}, {Collective::ReduceScatter}};
  case Collective::AllGather: return LevelCollectives{{Collective::AllGather}, {Collective::AllGather}};
  case Collective::Broadcast: return LevelCollectives{{Collective::Broadcast}, {Collective::Broadcast}};
  default: return std::nullopt;
  }
}

Phases phasesOf(Collective op, const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  switch (op) {
  case Collective::AllReduce: return hierarchicalAllReduce(lv, g, spec);
  case Collective::ReduceScatter: return hierarchicalReduceScatter(lv, g, spec);
  case Collective::AllGather: return hierarchicalAllGather(lv, g, spec);
  default: return hierarchicalBroadcast(lv, g, spec);
  }
}

} // namespace

std::vector<AlgorithmEntry> stagesOf(const AlgorithmEntry& level, bool pipelined) {
  if (!pipelined || level.phaseStages.empty()) return {level};
  std::vector<AlgorithmEntry> stages;
  for (const auto& build : level.phaseStages) {
    stages.push_back(level);
    stages.back().build = build;
  }
  return stages;
}

bool parseHierarchyName(const std::string& name, HierarchyChoice& out) {
  std::string head, rest, a, b;
  if (name.rfind("level0:", 0) == 0 && split(name, ';', a, b) && b.rfind("level1:", 0) == 0) {
    out = {normalize(a.substr(7)), normalize(b.substr(7)), 1};
    return true;
  }
  if (!split(name, ':', head, rest) || (head != "hier" && head != "hierpipe") || !split(rest, '+', a, b)) return false;
  out = {normalize(a), normalize(b), head == "hierpipe" ? 4 : 1};
  return true;
}

std::vector<std::string> hierarchyNames(Collective op) {
  auto phases = levelCollectives(op);
  if (!phases) return {};
  // The names that exist for every collective of a level, in registry order.
  auto common = [](const std::vector<Collective>& ops) {
    std::vector<std::string> names;
    for (const auto* registry : {&algorithmRegistry(), &inNetworkRegistry()})
      for (const AlgorithmEntry& e : *registry)
        if (e.op == ops.front() && std::all_of(ops.begin(), ops.end(), [&](Collective c) { return findAlgorithm(c, e.name); }))
          names.emplace_back(e.name);
    return names;
  };
  std::vector<std::string> out;
  const bool sliceable = op == Collective::AllReduce || op == Collective::Broadcast;
  for (const char* head : {"hier", "hierpipe"}) {
    if (std::string(head) == "hierpipe" && !sliceable) continue;
    for (const auto& a : common(phases->intra))
      for (const auto& b : common(phases->inter)) out.push_back(std::string(head) + ":" + a + "+" + b);
  }
  return out;
}

std::optional<AlgorithmEntry> hierarchicalEntry(Collective op, const HierarchyChoice& c, const std::string& name) {
  auto phases = levelCollectives(op);
  if (!phases) return std::nullopt;
  // A level on several streams runs as its one-stream form where it has one.
  auto asPhase = [](AlgorithmEntry e) {
    if (e.pipelinesChunks && e.buildAsPhase) {
      e.build = e.buildAsPhase;
      e.pipelinesChunks = false;
    }
    return e;
  };
  HierarchyLevels lv;
  for (Collective level : phases->intra) {
    auto e = findAlgorithm(level, c.intra);
    if (!e) return std::nullopt;
    lv.intra.push_back(asPhase(*e));
  }
  for (Collective level : phases->inter) {
    auto e = findAlgorithm(level, c.inter);
    if (!e) return std::nullopt;
    lv.inter.push_back(asPhase(*e));
  }
  const int slices = c.slices;
  lv.pipelined = slices > 1;
  // Slicing the buffer keeps AllReduce and Broadcast what they are; it would
  // change which block ReduceScatter and AllGather leave on each rank.
  const bool sliceable = op == Collective::AllReduce || op == Collective::Broadcast;
  AlgorithmEntry e;
  e.op = op;
  e.name = name;
  e.summary = "hierarchical: " + c.intra + " inside servers, " + c.inter + " between them" +
              (slices > 1 ? ", pipelined over " + std::to_string(slices) + " slices (under a library, one per chunk of each device)" : "");
  e.formula = "sum of the level algorithms' costs (see algorithms/hierarchical/" + std::string(collectiveName(op)) +
              "_hierarchical.cpp)";
  e.build = [op, lv, slices](const GroupView& g, const CollectiveSpec& spec) -> SchedulePtr {
    if (slices <= 1) return std::make_unique<SequenceSchedule>(phasesOf(op, lv, g, spec));
    // Under a library, one slice per chunk of each device (pipelinePieces):
    // its chunks flow through the phases as through NCCL's NVLS-tree warps.
    int pieces = pipelinePieces(g, spec, slices);
    std::vector<Phases> stages;
    for (int k = 0; k < pieces; ++k) stages.push_back(phasesOf(op, lv, g.sub(blockOf(g.count(), pieces, k)), spec));
    return pipeline(std::move(stages));
  };
  e.pipelinesChunks = slices > 1;
  // A level that still pipelines on streams of its own (one without a
  // one-stream form: nvls as AllReduce, dbtree as Broadcast) is not composed:
  // phases are chained as one stream, and joining its streams before the
  // next phase would need waits that SequenceSchedule does not insert.
  std::string multiStream;
  for (const auto* level : {&lv.intra, &lv.inter})
    for (const AlgorithmEntry& l : *level) {
      if (l.pipelinesChunks) multiStream = l.name;
      e.needsReducingSwitch = e.needsReducingSwitch || l.needsReducingSwitch;
      e.needsReducingFabric = e.needsReducingFabric || l.needsReducingFabric;
    }
  e.cost = [lv](int p, double n, const CostModel& m) {
    double t = 0;
    for (const auto& level : lv.intra) t += level.cost(p, n, m);
    for (const auto& level : lv.inter) t += level.cost(p, n, m);
    return t; // one model for both levels: a rough guide; the simulation is the measure
  };
  e.unsupported = [slices, sliceable, multiStream](const CollectiveSpec& spec) -> std::string {
    int D = spec.devicesPerServer;
    if (!multiStream.empty())
      return multiStream + " runs as several streams and cannot be a phase of a hierarchical algorithm yet (phases are chained as one stream)";
    if (D <= 0) return "needs a cluster of several servers (devices per server unknown)";
    if (spec.ranks % D) return "the ranks do not fill whole servers";
    if (slices > 1 && !sliceable) return "the pipelined variant exists for allreduce and broadcast only";
    return {};
  };
  return e;
}

} // namespace collsim
