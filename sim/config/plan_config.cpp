#include "sim/config/plan_config.h"

#include "sim/config/config_node.h"

namespace collsim {

static std::vector<ConfigNode> listOf(const ConfigNode& node) {
  if (!node.isSequence()) return {node};
  std::vector<ConfigNode> items = node.items();
  if (items.empty()) node.fail("expected at least one value");
  return items;
}

static std::vector<int> integers(const ConfigNode& node, long long max) {
  std::vector<int> out;
  for (const ConfigNode& v : listOf(node)) out.push_back(int(v.integer(1, max)));
  return out;
}

PlanSpace loadPlanSpace(const ConfigNode& node) {
  node.allowDeclared(InputKind::Scenario, "plan");
  PlanSpace s;
  s.globalBatch = std::uint64_t(node.at("global_batch").integer(1, 1LL << 40));
  if (auto v = node.find("tp")) s.tp = integers(*v, 1 << 16);
  if (auto v = node.find("pp")) s.pp = integers(*v, 1 << 16);
  if (auto v = node.find("micro_batch")) s.microBatch = integers(*v, 1 << 20);
  if (auto v = node.find("ep")) s.ep = integers(*v, 1 << 16);
  if (auto v = node.find("cp")) s.cp = integers(*v, 1 << 16);
  if (auto v = node.find("recomputation"))
    for (const ConfigNode& r : listOf(*v)) {
      std::string kind = r.choice({"none", "selective", "full"});
      s.recomputation.push_back(kind == "none" ? Recomputation::None
                                : kind == "selective" ? Recomputation::Selective
                                                      : Recomputation::Full);
    }
  if (auto v = node.find("expert_imbalance")) {
    s.expertImbalance = v->number();
    if (!(s.expertImbalance >= 1 && s.expertImbalance <= 100))
      v->fail("the busiest device's expert work over the mean: a number from 1 (even) to 100");
  }
  if (auto v = node.find("zero")) {
    s.zero.clear();
    for (const ConfigNode& z : listOf(*v)) s.zero.push_back(int(z.integer(0, 3)));
  }
  if (auto v = node.find("schedule")) {
    s.schedules.clear();
    for (const ConfigNode& k : listOf(*v)) {
      std::string kind = k.choice({"1f1b", "gpipe", "interleaved"});
      s.schedules.push_back(kind == "gpipe"  ? PipelineKind::GPipe
                            : kind == "1f1b" ? PipelineKind::OneFOneB
                                             : PipelineKind::Interleaved);
    }
  }
  if (auto v = node.find("virtual_stages")) {
    s.virtualStages.clear();
    for (const ConfigNode& k : listOf(*v)) s.virtualStages.push_back(int(k.integer(2, 1 << 10)));
  }
  if (auto v = node.find("sequence_parallel")) s.sequenceParallel = v->boolean();
  if (auto v = node.find("tp_across_servers")) s.tpAcrossServers = v->boolean();
  return s;
}

} // namespace collsim
