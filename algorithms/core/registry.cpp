#include "algorithms/core/registry.h"

#include "algorithms/flat/ring.h"

namespace collsim {

const std::vector<AlgorithmEntry>& algorithmRegistry() {
  // Explicit registration: the list below is the whole set, in display order.
  static const std::vector<AlgorithmEntry> entries = {
      ringAllReduceEntry(),
      ringReduceScatterEntry(),
      ringAllGatherEntry(),
  };
  return entries;
}

const AlgorithmEntry* findAlgorithm(Collective op, const std::string& name) {
  for (const auto& e : algorithmRegistry())
    if (e.op == op && name == e.name) return &e;
  return nullptr;
}

std::vector<std::string> algorithmNames(Collective op) {
  std::vector<std::string> names;
  for (const auto& e : algorithmRegistry())
    if (e.op == op) names.emplace_back(e.name);
  return names;
}

} // namespace collsim
