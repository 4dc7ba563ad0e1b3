// PFC's share of a switch's buffer. With PFC a switch must never drop, so
// each egress queue keeps back room for what its feeding links can still
// deliver after it pauses them (their headroom): it pauses the link a
// packet came in on once the queue passes its buffer less the headroom of
// every link into the switch, and lets those links go again XOFF - XON
// lower. The links are also paused per ingress, as PFC is specified, once
// what came over one of them and still waits passes XOFF.
//
// A buffer too small for that is a configuration error, found at load.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/network/roce_model.h"
#include "topologies/cluster.h"

namespace collsim {

// A switch's buffer per port (roce.buffer, or its own under roce.switches).
Bytes switchBuffer(const RoceModel& model, const std::string& switchName);

struct SwitchBudget {
  int node = -1;
  Bytes buffer = 0;          // per egress port
  Bytes reserve = 0;         // the headroom of all links into the switch
  Bytes largestHeadroom = 0; // of one link
  int links = 0;
  Bytes pauseAbove() const { return buffer > reserve ? buffer - reserve : 0; }
};

// Per switch node (empty entries for other nodes).
std::vector<SwitchBudget> pfcBudgets(const Cluster& cluster, const RoceModel& model);

// Why PFC cannot be lossless on this cluster (XOFF plus a link's headroom
// above a switch's buffer, or the headroom of its links not leaving any
// room), or nothing when it can. Only meaningful with PFC on.
std::optional<std::string> pfcBufferShortfall(const Cluster& cluster, const RoceModel& model);

} // namespace collsim
