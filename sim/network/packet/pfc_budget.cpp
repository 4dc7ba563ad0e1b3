#include "sim/network/packet/pfc_budget.h"

#include <algorithm>

#include "sim/core/units.h"
#include "sim/network/packet/egress_port.h"

namespace collsim {

Bytes switchBuffer(const RoceModel& model, const std::string& switchName) {
  Bytes buffer = model.switchBuffer;
  for (const auto& sw : model.switches)
    if (sw.buffer && sw.matches(switchName)) buffer = *sw.buffer;
  return buffer;
}

// Only a bounded jitter can be allowed for; a heavy tail may outrun any headroom.
static Time jitterBound(const JitterModel& j) { return j.kind == JitterModel::Kind::Uniform ? j.high : 0; }

std::vector<SwitchBudget> pfcBudgets(const Cluster& cluster, const RoceModel& model) {
  std::vector<SwitchBudget> budgets(cluster.nodes.size());
  const Bytes frame = model.mtu + kRocePacketOverhead + kRethBytes;
  for (const auto& l : cluster.links)
    for (int to : {l.a, l.b}) {
      if (cluster.nodes[std::size_t(to)].kind != NodeKind::Switch) continue;
      SwitchBudget& b = budgets[std::size_t(to)];
      Time jitter = jitterBound(l.tier == LinkTier::ScaleOut ? model.jitter : model.hccsJitter);
      Bytes headroom = pauseHeadroom(l.params.bandwidth, l.params.latency, frame, jitter);
      b.node = to;
      b.reserve += headroom;
      b.largestHeadroom = std::max(b.largestHeadroom, headroom);
      ++b.links;
    }
  for (auto& b : budgets)
    if (b.node >= 0) b.buffer = switchBuffer(model, cluster.nodes[std::size_t(b.node)].name);
  return budgets;
}

std::optional<std::string> pfcBufferShortfall(const Cluster& cluster, const RoceModel& model) {
  for (const auto& b : pfcBudgets(cluster, model)) {
    if (b.node < 0) continue;
    const std::string& name = cluster.nodes[std::size_t(b.node)].name;
    if (model.pfc.xoff + b.largestHeadroom > b.buffer)
      return "PFC xoff " + formatBytes(model.pfc.xoff) + " plus the headroom of a link into " + name + " (" +
             formatBytes(b.largestHeadroom) + ", what arrives in a round trip after a pause) is above its buffer of " +
             formatBytes(b.buffer) + " per port: lower pfc.xoff or raise the buffer";
    if (b.reserve >= b.buffer)
      return "the " + std::to_string(b.links) + " links into " + name + " need " + formatBytes(b.reserve) +
             " of PFC headroom together (" + formatBytes(b.largestHeadroom) + " each at most), not less than its " +
             formatBytes(b.buffer) + " buffer per port: raise the buffer";
  }
  return std::nullopt;
}

} // namespace collsim
