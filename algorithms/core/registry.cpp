#include "algorithms/core/registry.h"

#include "algorithms/flat/bruck_like.h"
#include "algorithms/flat/double_tree.h"
#include "algorithms/flat/mesh.h"
#include "algorithms/flat/nvls.h"
#include "algorithms/flat/pairwise.h"
#include "algorithms/flat/rhd.h"
#include "algorithms/flat/ring.h"
#include "algorithms/hierarchical/hierarchical.h"

namespace collsim {

const std::vector<AlgorithmEntry>& algorithmRegistry() {
  // Explicit registration: the list below is the whole set, in display order.
  static const std::vector<AlgorithmEntry> entries = {
      ringAllReduceEntry(),      rhdAllReduceEntry(),        recursiveDoublingAllReduceEntry(),
      meshAllReduceEntry(),      nhrAllReduceEntry(),        nbAllReduceEntry(),
      doubleTreeAllReduceEntry(), serverTreeAllReduceEntry(),
      ringReduceScatterEntry(),  rhdReduceScatterEntry(),    meshReduceScatterEntry(),
      nhrReduceScatterEntry(),   nbReduceScatterEntry(),
      ringAllGatherEntry(),      rhdAllGatherEntry(),        meshAllGatherEntry(),
      nhrAllGatherEntry(),       nbAllGatherEntry(),
      ringBroadcastEntry(),      doubleTreeBroadcastEntry(), ringReduceEntry(),
      ringAllToAllEntry(),       pairwiseAllToAllEntry(),
  };
  return entries;
}

SchedulePtr buildSchedule(const AlgorithmEntry& entry, const CollectiveSpec& spec) {
  return entry.build(GroupView::whole(spec), spec);
}

const std::vector<AlgorithmEntry>& inNetworkRegistry() {
  static const std::vector<AlgorithmEntry> entries = {
      nvlsAllReduceEntry(), nvlsReduceScatterEntry(), nvlsAllGatherEntry(),
      sharpEntry(nvlsAllReduceEntry()), sharpEntry(nvlsReduceScatterEntry()), sharpEntry(nvlsAllGatherEntry())};
  return entries;
}

namespace {
std::vector<std::pair<std::string, AlgorithmSource>>& algorithmSources() {
  static std::vector<std::pair<std::string, AlgorithmSource>> sources;
  return sources;
}
} // namespace

void registerAlgorithmSource(const std::string& prefix, AlgorithmSource source) {
  for (auto& [p, s] : algorithmSources())
    if (p == prefix) {
      s = std::move(source);
      return;
    }
  algorithmSources().emplace_back(prefix, std::move(source));
}

std::optional<AlgorithmEntry> findAlgorithm(Collective op, const std::string& name) {
  for (const auto& [prefix, source] : algorithmSources())
    if (name.rfind(prefix, 0) == 0) return source(op, name);
  for (const auto& e : algorithmRegistry())
    if (e.op == op && name == e.name) return e;
  for (const auto& e : inNetworkRegistry())
    if (e.op == op && name == e.name) return e;
  HierarchyChoice choice;
  if (parseHierarchyName(name, choice)) return hierarchicalEntry(op, choice, name);
  return std::nullopt;
}

std::vector<std::string> algorithmNames(Collective op) {
  std::vector<std::string> names;
  for (const auto& e : algorithmRegistry())
    if (e.op == op) names.emplace_back(e.name);
  return names;
}

} // namespace collsim
