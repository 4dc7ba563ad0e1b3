// The network models behind one interface: the fast link model
// (link_network.h: large segments, fair sharing, no per-packet congestion
// control) and the packet-level RoCE v2 model (packet/packet_network.h: MTU
// packets, switch queues, ECN, PFC, DCQCN, queue pairs, go-back-N, jitter).
// The executor sends messages and hears when their last byte has arrived.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/event_engine.h"
#include "sim/network/roce_model.h"
#include "topologies/cluster.h"

namespace collsim {

class TraceSink;

class DeliveryListener {
public:
  virtual void onDelivered(std::uint64_t cookie) = 0;

protected:
  ~DeliveryListener() = default;
};

// The network models by name (network_models.h).
enum class Fidelity { Fast, Packet };

struct NetworkOptions {
  Fidelity fidelity = Fidelity::Fast;
  Bytes segment = Bytes(1) << 20; // fast mode; packet mode uses the RoCE MTU
  std::uint64_t seed = 1;         // jitter draws
  RoceModel roce = defaultRoceModel(); // NICs and switches; the fast model takes its MTU's framing
};

// Per tier (scale-up, scale-out, PCIe), over the link directions that
// carried data.
struct LinkTypeMetrics {
  LinkTier tier = LinkTier::ScaleUp;
  std::string name; // the tier's, as the cluster file calls it ("NVLink")
  int channels = 0;
  double meanUtilization = 0, maxUtilization = 0; // busy time / run time
  double goodputOfLineRate = 0; // payload / (busy time x bandwidth): what headers and resent packets leave
  Bytes payload = 0, wire = 0;
};

// One link direction among the busiest of a run.
struct BusyLink {
  std::string name; // "dev3 -> leaf0 (RoCE)"
  double utilization = 0;
  Bytes payload = 0;
};

struct NetworkMetrics {
  std::string fidelity;
  std::vector<LinkTypeMetrics> links;
  std::vector<BusyLink> busiest; // per link direction, the busiest first (at most 10)
  std::uint64_t packets = 0, packetHops = 0;
  // Switch egress queues, sampled at every packet that joins one.
  Bytes queueP50 = 0, queueP99 = 0, queueMax = 0;
  std::uint64_t ecnMarks = 0, cnps = 0, drops = 0, retransmittedPackets = 0, timeouts = 0, pauseFrames = 0;
  Time pauseTime = 0; // summed over link directions
  // Per message: from send to last byte delivered.
  Time latencyP50 = 0, latencyP99 = 0, latencyP999 = 0;
  std::uint64_t messages = 0;
  // Fast model: the most messages that waited at once for one Ethernet
  // switch port, and that port. Two or more share a port whose inputs
  // outrun it: at packet level a queue that ECN marks (for notes only).
  int switchPortSharing = 0;
  std::string switchPortShared;
};

// Sums link directions up per link type for NetworkMetrics::links, and
// keeps the busiest directions for NetworkMetrics::busiest.
class LinkUsageTally {
public:
  LinkUsageTally(const Cluster& cluster, Time runTime) : cluster_(cluster), runTime_(runTime) {}
  // Channel `channel` (2i: link i from a to b, 2i+1 back).
  void add(std::size_t channel, Time busy, Bandwidth bandwidth, Bytes payload, Bytes wire);
  void fill(NetworkMetrics& m) const;

private:
  const Cluster& cluster_;
  Time runTime_;
  std::vector<LinkTypeMetrics> links_;
  std::vector<std::uint8_t> levels_; // the cluster tier of each of links_
  std::vector<double> lineBytes_; // what the busy time could have carried
  std::vector<std::pair<double, std::size_t>> utilization_; // per channel used
  std::vector<Bytes> payload_;
};

class Network {
public:
  virtual ~Network() = default;
  void setListener(DeliveryListener* listener) { listener_ = listener; }
  void setTrace(TraceSink* trace) { trace_ = trace; }
  // Starts sending `bytes` from node `src` to node `dst` now; the listener
  // hears `cookie` once the last byte has arrived.
  virtual void send(int src, int dst, Bytes bytes, std::uint64_t cookie) = 0;
  // Reports the busy periods still open to the trace (at the end of a run).
  virtual void flushTrace() = 0;
  // Figures of the run so far; `runTime` is what utilization is relative to.
  virtual NetworkMetrics metrics(Time runTime) const = 0;
  // Folds the network onto the representative channels of a symmetry
  // (rank_symmetry.h: channelFold[c] for channel c; each representative
  // stands for `copies` channels): messages cross representatives, and the
  // metrics give every channel its representative's figures. False when
  // the model cannot (the packet model's queues and jitter are per port).
  virtual bool fold(const std::vector<std::uint32_t>& /*channelFold*/, int /*copies*/) { return false; }

protected:
  DeliveryListener* listener_ = nullptr;
  TraceSink* trace_ = nullptr;
};

} // namespace collsim
