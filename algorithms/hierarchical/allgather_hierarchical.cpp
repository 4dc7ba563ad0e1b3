// Hierarchical AllGather, ReduceScatter's mirror: rank s*D + j starts with
// block s*D+j.
//   1. among the devices j of all servers, all-gather chunk j (level 1);
//   2. inside every server, all-gather by chunks (level 0).
// Fabric bytes per device: (S-1)/S n/D.
#include "algorithms/core/compose.h"
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalAllGather(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  std::vector<GroupView> servers, peers;
  for (int s = 0; s < sg.servers(); ++s) servers.push_back(sg.serverByChunks(s));
  for (int j = 0; j < sg.devices(); ++j) peers.push_back(sg.peersOnChunk(j));
  Phases phases;
  phases.push_back(ServerGroups::overViews(lv.inter[0], peers, spec));
  phases.push_back(ServerGroups::overViews(lv.intra[0], servers, spec));
  return phases;
}

} // namespace collsim
