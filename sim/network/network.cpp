#include "sim/network/network.h"

#include <algorithm>

#include "sim/network/link_network.h"
#include "sim/network/packet_network.h"

namespace collsim {

const char* fidelityName(Fidelity f) { return f == Fidelity::Packet ? "packet" : "fast"; }

bool parseFidelity(const std::string& name, Fidelity& out) {
  if (name == "fast") out = Fidelity::Fast;
  else if (name == "packet") out = Fidelity::Packet;
  else return false;
  return true;
}

void LinkUsageTally::add(const std::string& type, Time busy, Bandwidth bandwidth, Bytes payload, Bytes wire) {
  if (wire == 0) return;
  auto it = std::find_if(links_.begin(), links_.end(), [&](const LinkTypeMetrics& l) { return l.type == type; });
  if (it == links_.end()) {
    it = links_.insert(links_.end(), LinkTypeMetrics{});
    it->type = type;
    lineBytes_.push_back(0);
  }
  double utilization = runTime_ > 0 ? double(busy) / double(runTime_) : 0;
  it->meanUtilization += utilization;
  it->maxUtilization = std::max(it->maxUtilization, utilization);
  lineBytes_[std::size_t(it - links_.begin())] += toSeconds(busy) * double(bandwidth);
  it->payload += payload;
  it->wire += wire;
  ++it->channels;
}

std::vector<LinkTypeMetrics> LinkUsageTally::result() const {
  std::vector<LinkTypeMetrics> out = links_;
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].meanUtilization /= out[i].channels;
    out[i].goodputOfLineRate = lineBytes_[i] > 0 ? double(out[i].payload) / lineBytes_[i] : 0;
  }
  return out;
}

std::unique_ptr<Network> makeNetwork(EventEngine& engine, const Cluster& cluster, const NetworkOptions& options) {
  if (options.fidelity == Fidelity::Packet) return std::make_unique<PacketNetwork>(engine, cluster, options.seed);
  return std::make_unique<LinkNetwork>(engine, cluster, options.segment);
}

} // namespace collsim
