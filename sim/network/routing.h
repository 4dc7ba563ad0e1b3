// Shortest-hop routing over a cluster's links with ECMP, computed on demand
// and cached per (source, destination, flow).
//
// Channel 2i carries link i from its end `a` to `b`, channel 2i+1 back.
// Between two devices of one server, routes stay inside the server (HCCS,
// PCIe) unless the cluster allows intra-server RoCE.
// Where several next hops lie on shortest paths (several spines), one is
// chosen by a hash of (source, destination, flow, hop), as switches hash a flow's
// header: every flow keeps one path, different flows spread over the paths,
// and the choice is the same in every run.
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

class Routing {
public:
  explicit Routing(const Cluster& cluster, std::uint64_t salt = 0);

  // A path: `hops` channels stored from `begin` on (indices, since the
  // storage grows as new paths are cached).
  struct Route {
    std::uint32_t begin;
    std::uint32_t hops;
  };
  // The route from node `src` to node `dst` for flow `flow` (a queue pair of
  // the connection: each flow hashes onto its own ECMP path). Throws
  // TopologyError if there is none.
  Route route(int src, int dst, std::uint32_t flow = 0);
  // The channel taken at `hop` (0-based) of a route.
  std::uint32_t channel(const Route& r, std::uint32_t hop) const { return pathChannels_[r.begin + hop]; }
  // Routes from now on cross each channel's representative (rank_symmetry.h:
  // fold[c]); a route with a choice of paths, or through two channels of one
  // class, throws SymmetryBroken.
  void fold(std::vector<std::uint32_t> channelFold) { fold_ = std::move(channelFold); }

private:
  struct Adjacent {
    int node;
    std::uint32_t channel;
  };
  static bool byNeighbour(const Adjacent& x, const Adjacent& y) { return x.node < y.node; }
  // Hop distances to `dst`, at least for every node closer than `src`,
  // over nodes of server `within` only (all nodes when it is -1).
  void distancesTo(int dst, int src, int within);

  std::vector<std::vector<Adjacent>> adjacency_;
  std::vector<std::vector<Adjacent>> linksTo_;     // per node, its adjacency sorted by neighbour
  std::vector<int> serverOf_; // per node
  bool intraServerRoce_;
  std::uint64_t salt_;
  std::vector<std::uint32_t> fold_; // empty: every channel is its own
  std::vector<std::uint32_t> pathChannels_;        // all cached paths, back to back
  // Per source node, its cached routes sorted by (destination, flow): a
  // source has few destinations, so the search stays in a few cache lines.
  std::vector<std::vector<std::pair<std::uint64_t, Route>>> cache_;
  std::vector<int> frontier_;                      // BFS scratch: the queue
  std::vector<int> dist_;                          // BFS scratch, valid where stamp_ == round_
  std::vector<std::uint32_t> stamp_;
  std::uint32_t round_ = 0;
};

} // namespace collsim
