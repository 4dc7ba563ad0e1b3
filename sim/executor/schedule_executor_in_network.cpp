// In-network reduction and multicast for the schedule executor: sends that a
// switch combines (schedule.h, InNetwork) take two legs through it.
#include <algorithm>
#include <cassert>
#include <cmath>

#include "sim/executor/schedule_executor.h"

namespace collsim {

// Devices of one server meet at its switch (NVLS); devices of different
// servers at the fabric's switch (SHARP).
int ScheduleExecutor::switchBetween(int a, int b) const {
  int server = rankServer_[std::size_t(a)];
  if (server >= 0 && server == rankServer_[std::size_t(b)]) return reducingSwitchOfServer_[std::size_t(server)];
  return reducingFabricSwitch_;
}

int ScheduleExecutor::reducingSwitch(int rank, const Op& op) const {
  if (op.net == InNetwork::None || op.group == 0) return -1;
  return switchBetween(rank, op.peer);
}

// What a leg through switch `sw` costs its ports: the switch reduces and
// multicasts at a share of their rate (ClusterNode::reduceEfficiency).
Bytes ScheduleExecutor::throughSwitch(Bytes wire, int sw) const {
  double efficiency = cluster_.nodes[std::size_t(sw)].reduceEfficiency;
  return efficiency < 1 ? Bytes(std::ceil(double(wire) / efficiency)) : wire;
}

// Reduce: the contribution goes up to the switch, which waits for its whole
// group (the same round from every contributor to this destination).
// Multicast: the step's sends of the same bytes share one upload; the
// switch sends the copies when it has arrived. The lane pushes each upload once.
void ScheduleExecutor::sendThroughSwitch(std::uint32_t l, const Op& op, int sw, InFlight message, Bytes wire,
                                         std::vector<std::pair<const Op*, std::uint32_t>>& stepMulticasts) {
  Lane& s = lanes_[l];
  auto push = [&] {
    if (costs_.laneBandwidth > 0)
      s.pushedAt = std::max(s.pushedAt, engine_.now()) + serializationTime(op.bytes, costs_.laneBandwidth);
    return s.pushedAt;
  };
  if (op.net == InNetwork::Reduce) {
    message.leg = Leg::ReduceUp;
    message.relay = pairs_[message.pair].reduceSends++;
    message.group = op.group;
    message.pushedAt = push();
    network_.send(cluster_.rankNode[s.rank], sw, wire, inFlight_.add(message));
    return;
  }
  message.leg = Leg::MulticastCopy;
  std::uint32_t copy = inFlight_.add(message);
  auto same = std::find_if(stepMulticasts.begin(), stepMulticasts.end(), [&](const auto& m) {
    return m.first->offset == op.offset && m.first->bytes == op.bytes;
  });
  if (same != stepMulticasts.end()) {
    multicasts_[same->second].copies.push_back(copy);
    return;
  }
  std::uint32_t mc = multicasts_.acquire();
  Multicast& group = multicasts_[mc];
  group.switchNode = sw;
  group.wire = wire;
  group.copies.assign(1, copy);
  stepMulticasts.emplace_back(&op, mc);
  InFlight upload{l, l, 0, mc, 0, push(), 0, Leg::MulticastUp};
  network_.send(cluster_.rankNode[s.rank], sw, wire, inFlight_.add(upload));
}

// A leg to or from the switch has arrived.
void ScheduleExecutor::relay(std::uint32_t cookie) {
  InFlight m = inFlight_[cookie];
  switch (m.leg) {
  case Leg::MulticastUp: {
    inFlight_.release(cookie);
    Multicast group = std::move(multicasts_[m.relay]);
    multicasts_.release(m.relay);
    for (std::uint32_t copy : group.copies)
      network_.send(group.switchNode, cluster_.rankNode[inFlight_[copy].to], group.wire, copy);
    return;
  }
  case Leg::ReduceUp: {
    sendArrived(m); // the contribution has left its rank for good
    std::uint64_t key = std::uint64_t(m.dstLane) << 32 | m.relay;
    auto [it, fresh] = openMerges_.try_emplace(key, 0);
    if (fresh) {
      it->second = merges_.acquire();
      Merge& created = merges_[it->second];
      created.expected = m.group;
      created.arrived = 0;
      created.parts.clear();
      // Where the first contribution went: the others of a group go there too.
      created.switchNode = switchBetween(lanes_[m.srcLane].rank, m.to);
    }
    std::uint32_t index = it->second;
    Merge& merge = merges_[index];
    merge.parts.push_back(cookie);
    if (++merge.arrived < merge.expected) return;
    openMerges_.erase(it);
    InFlight down{m.srcLane, m.dstLane, 0, index, m.bytes, 0, 0, Leg::ReduceDown};
    down.to = m.to;
    network_.send(merge.switchNode, cluster_.rankNode[m.to], throughSwitch(wireBytes(m.bytes), merge.switchNode),
                  inFlight_.add(down));
    return;
  }
  case Leg::ReduceDown: {
    inFlight_.release(cookie);
    std::vector<std::uint32_t> parts = std::move(merges_[m.relay].parts);
    merges_.release(m.relay);
    for (std::uint32_t part : parts) receiverGot(part);
    return;
  }
  case Leg::Direct:
  case Leg::MulticastCopy:
  case Leg::SlotBack:
    break;
  }
  assert(false && "deliver() relays only the legs through a switch");
}

} // namespace collsim
