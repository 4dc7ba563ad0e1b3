// Hierarchical AllGather, ReduceScatter's mirror: rank s*D + j starts with
// block s*D+j.
//   1. among the devices j of all servers, all-gather chunk j (level 1);
//   2. inside every server, all-gather by chunks (level 0).
// Fabric bytes per device: (S-1)/S n/D.
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalAllGather(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  Phases phases;
  phases.push_back(sg.acrossServers(lv.inter[0], &ServerGroups::peersOnChunk, spec));
  phases.push_back(sg.inEveryServer(lv.intra[0], &ServerGroups::serverByChunks, spec));
  return phases;
}

} // namespace collsim
