// The packet model's counters and samples, and how they become the
// NetworkMetrics every model reports.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/network/network.h"
#include "sim/network/packet/egress_port.h"
#include "sim/network/sample_set.h"

namespace collsim {

struct PacketMetrics {
  SampleSet<Bytes> queueDepth; // switch egress queues, at every packet that joins one
  SampleSet<Time> latency;     // per message, send to last byte
  std::uint64_t packetsSent = 0, packetHops = 0, ecnMarks = 0, cnps = 0, drops = 0, resent = 0, timeouts = 0,
                pauseFrames = 0;

  // `now` closes the pauses still in force.
  NetworkMetrics report(const Cluster& cluster, const std::vector<EgressPort>& ports, Time runTime, Time now) const;
};

} // namespace collsim
