#include "sim/network/packet/packet_metrics.h"

namespace collsim {

NetworkMetrics PacketMetrics::report(const Cluster& cluster, const std::vector<EgressPort>& ports, Time runTime,
                                     Time now) const {
  NetworkMetrics m;
  m.fidelity = "packet";
  LinkUsageTally tally(cluster, runTime);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const EgressPort& p = ports[i];
    tally.add(i, p.busy, p.bandwidth, p.payload, p.wire);
    if (p.toSwitch) m.pauseTime += p.pausedTotal + (p.paused ? now - p.pausedSince : 0); // PFC only
  }
  tally.fill(m);
  m.packets = packetsSent;
  m.packetHops = packetHops;
  m.queueP50 = queueDepth.quantile(0.5);
  m.queueP99 = queueDepth.quantile(0.99);
  m.queueMax = queueDepth.max();
  m.ecnMarks = ecnMarks;
  m.cnps = cnps;
  m.drops = drops;
  m.retransmittedPackets = resent;
  m.timeouts = timeouts;
  m.pauseFrames = pauseFrames;
  m.latencyP50 = latency.quantile(0.5);
  m.latencyP99 = latency.quantile(0.99);
  m.latencyP999 = latency.quantile(0.999);
  m.messages = latency.count();
  return m;
}

} // namespace collsim
