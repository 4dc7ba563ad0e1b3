// Shortest-hop routing over a cluster's links, computed on demand and cached.
//
// Channel 2i carries link i from its end `a` to `b`, channel 2i+1 back.
// Ties between equal-length paths go to the lowest-numbered link (BFS in
// link order), so routes are deterministic.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

class Routing {
public:
  explicit Routing(const Cluster& cluster);

  // A path: `hops` channels stored from `begin` on (indices, since the
  // storage grows as new paths are cached).
  struct Route {
    std::uint32_t begin;
    std::uint32_t hops;
  };
  // The route from node `src` to node `dst`. Throws TopologyError if there is none.
  Route route(int src, int dst);
  // The channel taken at `hop` (0-based) of a route.
  std::uint32_t channel(const Route& r, std::uint32_t hop) const { return pathChannels_[r.begin + hop]; }

private:
  struct Adjacent {
    int node;
    std::uint32_t channel;
  };
  std::vector<std::vector<Adjacent>> adjacency_;
  std::vector<std::uint32_t> pathChannels_;               // all cached paths, back to back
  std::unordered_map<std::uint64_t, Route> cache_;
  std::vector<int> parent_, parentChannel_;               // BFS scratch
};

} // namespace collsim
