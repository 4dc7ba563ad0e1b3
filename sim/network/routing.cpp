#include "sim/network/routing.h"

#include <algorithm>

#include "sim/network/rank_symmetry.h"

namespace collsim {
namespace {

std::uint64_t mix(std::uint64_t x) { // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

} // namespace

Routing::Routing(const Cluster& cluster, std::uint64_t salt)
    : adjacency_(cluster.nodes.size()), intraServerRoce_(cluster.intraServerRoce), salt_(salt) {
  for (const auto& n : cluster.nodes) serverOf_.push_back(n.server);
  for (std::size_t i = 0; i < cluster.links.size(); ++i) {
    const auto& l = cluster.links[i];
    adjacency_[l.a].push_back({l.b, std::uint32_t(2 * i)});
    adjacency_[l.b].push_back({l.a, std::uint32_t(2 * i + 1)});
  }
  linksTo_.resize(adjacency_.size());
  for (std::size_t u = 0; u < adjacency_.size(); ++u) {
    linksTo_[u] = adjacency_[u];
    // Stable: parallel links keep their order, so ECMP picks as the scan did.
    std::stable_sort(linksTo_[u].begin(), linksTo_[u].end(), byNeighbour);
  }
  cache_.resize(adjacency_.size());
  dist_.assign(adjacency_.size(), 0);
  stamp_.assign(adjacency_.size(), 0);
}

void Routing::distancesTo(int dst, int src, int within) {
  ++round_;
  frontier_.clear();
  frontier_.push_back(dst);
  dist_[dst] = 0;
  stamp_[dst] = round_;
  if (src == dst) return;
  // Breadth first from `dst` until a neighbour of `src` comes off the queue:
  // its level is src's less one, and that level is then complete (every
  // node of a level is queued before the first of it leaves), which is all
  // the walk from src needs. Stopping there, and not after expanding the
  // neighbour, keeps a switch's hundreds of ports from being scanned for
  // every route.
  for (std::size_t head = 0; head < frontier_.size(); ++head) {
    int u = frontier_[head];
    if (std::binary_search(linksTo_[src].begin(), linksTo_[src].end(), Adjacent{u, 0}, byNeighbour)) {
      dist_[src] = dist_[u] + 1;
      stamp_[src] = round_;
      return;
    }
    for (const Adjacent& a : adjacency_[u]) {
      if (stamp_[a.node] == round_ || (within >= 0 && serverOf_[a.node] != within)) continue;
      stamp_[a.node] = round_;
      dist_[a.node] = dist_[u] + 1;
      frontier_.push_back(a.node);
    }
  }
}

Routing::Route Routing::route(int src, int dst, std::uint32_t flow) {
  if (src >= 1 << 24 || dst >= 1 << 24 || flow >= 1 << 16) throw TopologyError("route: node or flow number too large");
  auto& cached = cache_[std::size_t(src)];
  std::uint64_t cacheKey = std::uint64_t(dst) << 16 | flow;
  auto at = std::lower_bound(cached.begin(), cached.end(), cacheKey, [](const auto& e, std::uint64_t k) { return e.first < k; });
  if (at != cached.end() && at->first == cacheKey) return at->second;
  // Flow 0 hashes as (source, destination) alone; further flows (queue
  // pairs) of the pair mix their number in.
  std::uint64_t key = (std::uint64_t(src) << 32 | std::uint32_t(dst)) ^ (flow ? mix(flow) : 0);

  int within = !intraServerRoce_ && serverOf_[src] >= 0 && serverOf_[src] == serverOf_[dst] ? serverOf_[src] : -1;
  distancesTo(dst, src, within);
  if (stamp_[src] != round_)
    throw TopologyError("no route from node " + std::to_string(src) + " to node " + std::to_string(dst));

  Route r{std::uint32_t(pathChannels_.size()), 0};
  std::vector<const Adjacent*> next;
  for (int u = src; u != dst; ++r.hops) {
    next.clear();
    if (dist_[u] == 1) { // the last hop: the links to dst, found without scanning a switch's every port
      auto [first, last] = std::equal_range(linksTo_[u].begin(), linksTo_[u].end(), Adjacent{dst, 0}, byNeighbour);
      for (auto a = first; a != last; ++a) next.push_back(&*a);
    } else {
      for (const Adjacent& a : adjacency_[u])
        if (stamp_[a.node] == round_ && dist_[a.node] == dist_[u] - 1) next.push_back(&a);
    }
    const Adjacent* pick = next[mix(salt_ ^ mix(key ^ (std::uint64_t(r.hops) << 56))) % next.size()];
    if (!fold_.empty() && next.size() > 1)
      throw SymmetryBroken("a route has a choice of paths (ECMP hashes on node numbers)");
    if (!fold_.empty() && (fold_[pick->channel] & kFixedChannel))
      throw SymmetryBroken("a route crosses a link that several alike ranks' traffic would share (a spine)");
    pathChannels_.push_back(fold_.empty() ? pick->channel : fold_[pick->channel]);
    u = pick->node;
  }
  if (!fold_.empty()) { // a class member crossed twice would be one channel crossed twice
    std::vector<std::uint32_t> crossed(pathChannels_.begin() + r.begin, pathChannels_.end());
    std::sort(crossed.begin(), crossed.end());
    if (std::adjacent_find(crossed.begin(), crossed.end()) != crossed.end())
      throw SymmetryBroken("a route crosses two links that stand for each other");
  }
  cached.insert(at, {cacheKey, r});
  return r;
}

} // namespace collsim
