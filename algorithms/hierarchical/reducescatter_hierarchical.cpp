// Hierarchical ReduceScatter: block r of p ends on rank r = s*D + j.
//   1. inside every server, reduce-scatter by chunks (level 0): device j
//      holds chunk j (blocks j, D+j, ...) summed over its server;
//   2. among the devices j of all servers, reduce-scatter chunk j (level 1):
//      device j of server s keeps block s*D+j, summed over the cluster.
// Fabric bytes per device: (S-1)/S n/D.
#include "algorithms/core/compose.h"
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalReduceScatter(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  std::vector<GroupView> servers, peers;
  for (int s = 0; s < sg.servers(); ++s) servers.push_back(sg.serverByChunks(s));
  for (int j = 0; j < sg.devices(); ++j) peers.push_back(sg.peersOnChunk(j));
  Phases phases;
  phases.push_back(ServerGroups::overViews(lv.intra[0], servers, spec));
  phases.push_back(ServerGroups::overViews(lv.inter[0], peers, spec));
  return phases;
}

} // namespace collsim
