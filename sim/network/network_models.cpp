#include "sim/network/network_models.h"

#include "sim/network/link_network.h"
#include "sim/network/packet/packet_network.h"

namespace collsim {

const std::vector<NetworkModelEntry>& networkModels() {
  static const std::vector<NetworkModelEntry> models = {
      {Fidelity::Fast, "fast",
       "links with large segments shared fairly, RoCE framing, queue pairs on their ECMP paths, no per-packet congestion control (thousands of devices)",
       [](EventEngine& e, const Cluster& c, const NetworkOptions& o) -> std::unique_ptr<Network> {
         return std::make_unique<LinkNetwork>(e, c, o.roce.mtu, o.segment, o.roce.queuePairs);
       }},
      {Fidelity::Packet, "packet",
       "MTU packets through switch queues: ECN, PFC, DCQCN, queue pairs, go-back-N, jitter",
       [](EventEngine& e, const Cluster& c, const NetworkOptions& o) -> std::unique_ptr<Network> {
         return std::make_unique<PacketNetwork>(e, c, o.roce, o.seed);
       }},
  };
  return models;
}

static const NetworkModelEntry& entryOf(Fidelity f) {
  for (const auto& m : networkModels())
    if (m.fidelity == f) return m;
  return networkModels().front();
}

const char* fidelityName(Fidelity f) { return entryOf(f).name; }

bool parseFidelity(const std::string& name, Fidelity& out) {
  for (const auto& m : networkModels())
    if (name == m.name) {
      out = m.fidelity;
      return true;
    }
  return false;
}

std::string describeNetworkModels() {
  std::string s;
  for (const auto& m : networkModels()) s += std::string(s.empty() ? "" : "; ") + m.name + ": " + m.description;
  return s;
}

std::unique_ptr<Network> makeNetwork(EventEngine& engine, const Cluster& cluster, const NetworkOptions& options) {
  return entryOf(options.fidelity).make(engine, cluster, options);
}

} // namespace collsim
