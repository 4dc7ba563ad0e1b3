// The groups and views hierarchical collectives are built from.
//
// Ranks are laid out server by server: local rank s*D + j of the group is
// device j of server s. The buffer is cut into p = S*D blocks; "chunk j" is
// blocks j, D+j, 2D+j, ... (block s*D+j for every server s), the share of
// device j in every server.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "algorithms/core/registry.h"

namespace collsim {

class ServerGroups {
public:
  ServerGroups(const GroupView& g, int devicesPerServer);
  int servers() const { return S_; }
  int devices() const { return D_; }

  // Server s's devices over the whole view (contiguous).
  GroupView server(int s) const;
  // Devices j of every server over the whole view (contiguous).
  GroupView peers(int j) const;
  // Devices j of every server over block j of the view cut into D blocks.
  GroupView peersOnBlock(int j) const;
  // Server s's devices over the whole buffer regrouped as chunk 0, chunk 1,
  // ...: view block j is chunk j.
  GroupView serverByChunks(int s) const;
  // Devices j of every server over chunk j: view block s is buffer block s*D+j.
  GroupView peersOnChunk(int j) const;

  // A view of the group: one of the above.
  using ViewOf = GroupView (ServerGroups::*)(int) const;
  // `level` inside every server at once, over view(s) for server s; `root`
  // is the local root in every server. Each server's schedule is built when
  // one of its ranks is first asked about.
  SchedulePtr inEveryServer(const AlgorithmEntry& level, ViewOf view, const CollectiveSpec& spec, int root = 0) const;
  // `level` among devices j of all servers over view(j), for every j at
  // once (or for device `only`); `root` is the local root (a server).
  SchedulePtr acrossServers(const AlgorithmEntry& level, ViewOf view, const CollectiveSpec& spec, int root = 0,
                            int only = -1) const;

private:
  Block bufferBlock(int b) const; // block b of the view, in buffer elements
  std::vector<int> serverMembers(int s) const;
  std::vector<int> peerMembers(int j) const;
  // `level` over view(indices[i]) for every i; rank r is in part partOf(r).
  SchedulePtr overViews(const AlgorithmEntry& level, ViewOf view, std::vector<int> indices,
                        std::function<int(int)> partOf, const CollectiveSpec& spec, int root) const;

  std::shared_ptr<const GroupView> g_; // shared with the schedules that build views later
  int S_, D_;
};

} // namespace collsim
