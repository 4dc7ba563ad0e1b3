#include "sim/network/network.h"

#include <algorithm>

namespace collsim {

void LinkUsageTally::add(std::size_t channel, Time busy, Bandwidth bandwidth, Bytes payload, Bytes wire) {
  if (wire == 0) return;
  const ClusterLink& link = cluster_.links[channel / 2];
  auto it = std::find(levels_.begin(), levels_.end(), link.level);
  if (it == levels_.end()) {
    it = levels_.insert(levels_.end(), link.level);
    links_.push_back({link.tier, cluster_.tierName(link), 0, 0, 0, 0, 0, 0});
    lineBytes_.push_back(0);
  }
  auto tier = links_.begin() + (it - levels_.begin());
  double utilization = runTime_ > 0 ? double(busy) / double(runTime_) : 0;
  tier->meanUtilization += utilization;
  tier->maxUtilization = std::max(tier->maxUtilization, utilization);
  lineBytes_[std::size_t(tier - links_.begin())] += toSeconds(busy) * double(bandwidth);
  tier->payload += payload;
  tier->wire += wire;
  ++tier->channels;
  utilization_.emplace_back(utilization, channel);
  payload_.push_back(payload);
}

void LinkUsageTally::fill(NetworkMetrics& m) const {
  // Tiers from the devices up, as the cluster lists them.
  std::vector<std::size_t> byLevel(links_.size());
  for (std::size_t i = 0; i < byLevel.size(); ++i) byLevel[i] = i;
  std::sort(byLevel.begin(), byLevel.end(), [&](std::size_t a, std::size_t b) { return levels_[a] < levels_[b]; });
  for (std::size_t i : byLevel) {
    LinkTypeMetrics l = links_[i];
    l.meanUtilization /= l.channels;
    l.goodputOfLineRate = lineBytes_[i] > 0 ? double(l.payload) / lineBytes_[i] : 0;
    m.links.push_back(std::move(l));
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
    m.busiest.push_back({a + " -> " + b + " (" + cluster_.tierName(l) + ")", utilization_[order[k]].first, payload_[order[k]]});
  }
}

} // namespace collsim
