#include "sim/network/network.h"

#include <algorithm>

namespace collsim {

void LinkUsageTally::add(std::size_t channel, Time busy, Bandwidth bandwidth, Bytes payload, Bytes wire) {
  if (wire == 0) return;
  const LinkTier tier = cluster_.links[channel / 2].tier;
  auto it = std::find_if(links_.begin(), links_.end(), [&](const LinkTypeMetrics& l) { return l.tier == tier; });
  if (it == links_.end()) {
    it = links_.insert(links_.end(), LinkTypeMetrics{});
    it->tier = tier;
    it->name = cluster_.tierName(tier);
    lineBytes_.push_back(0);
  }
  double utilization = runTime_ > 0 ? double(busy) / double(runTime_) : 0;
  it->meanUtilization += utilization;
  it->maxUtilization = std::max(it->maxUtilization, utilization);
  lineBytes_[std::size_t(it - links_.begin())] += toSeconds(busy) * double(bandwidth);
  it->payload += payload;
  it->wire += wire;
  ++it->channels;
  utilization_.emplace_back(utilization, channel);
  payload_.push_back(payload);
}

void LinkUsageTally::fill(NetworkMetrics& m) const {
  m.links = links_;
  for (std::size_t i = 0; i < m.links.size(); ++i) {
    m.links[i].meanUtilization /= m.links[i].channels;
    m.links[i].goodputOfLineRate = lineBytes_[i] > 0 ? double(m.links[i].payload) / lineBytes_[i] : 0;
  }
  std::vector<std::size_t> order(utilization_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::size_t top = std::min<std::size_t>(10, order.size());
  // Busiest first; equal ones in channel order, so runs stay identical.
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(top), order.end(), [&](std::size_t a, std::size_t b) {
    return utilization_[a].first != utilization_[b].first ? utilization_[a].first > utilization_[b].first
                                                          : utilization_[a].second < utilization_[b].second;
  });
  for (std::size_t k = 0; k < top; ++k) {
    std::size_t c = utilization_[order[k]].second;
    const ClusterLink& l = cluster_.links[c / 2];
    const std::string &a = cluster_.nodes[c % 2 == 0 ? l.a : l.b].name, &b = cluster_.nodes[c % 2 == 0 ? l.b : l.a].name;
    m.busiest.push_back({a + " -> " + b + " (" + cluster_.tierName(l.tier) + ")", utilization_[order[k]].first, payload_[order[k]]});
  }
}

} // namespace collsim
