#include "sim/network/routing.h"

#include <algorithm>
#include <deque>

namespace collsim {

Routing::Routing(const Cluster& cluster) : adjacency_(cluster.nodes.size()) {
  for (std::size_t i = 0; i < cluster.links.size(); ++i) {
    const auto& l = cluster.links[i];
    adjacency_[l.a].push_back({l.b, std::uint32_t(2 * i)});
    adjacency_[l.b].push_back({l.a, std::uint32_t(2 * i + 1)});
  }
  parent_.assign(adjacency_.size(), -1);
  parentChannel_.assign(adjacency_.size(), -1);
}

Routing::Route Routing::route(int src, int dst) {
  std::uint64_t key = std::uint64_t(src) << 32 | std::uint32_t(dst);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  std::fill(parent_.begin(), parent_.end(), -1);
  std::deque<int> frontier{src};
  parent_[src] = src;
  while (!frontier.empty() && parent_[dst] < 0) {
    int u = frontier.front();
    frontier.pop_front();
    for (const Adjacent& a : adjacency_[u]) {
      if (parent_[a.node] >= 0) continue;
      parent_[a.node] = u;
      parentChannel_[a.node] = int(a.channel);
      frontier.push_back(a.node);
    }
  }
  if (parent_[dst] < 0)
    throw TopologyError("no route from node " + std::to_string(src) + " to node " + std::to_string(dst));

  std::uint32_t begin = std::uint32_t(pathChannels_.size());
  for (int v = dst; v != src; v = parent_[v]) pathChannels_.push_back(std::uint32_t(parentChannel_[v]));
  std::reverse(pathChannels_.begin() + begin, pathChannels_.end());
  std::uint32_t length = std::uint32_t(pathChannels_.size()) - begin;
  Route r{begin, length};
  cache_.emplace(key, r);
  return r;
}

} // namespace collsim
