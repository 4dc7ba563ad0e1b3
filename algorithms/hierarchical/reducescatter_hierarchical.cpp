// Hierarchical ReduceScatter: block r of p ends on rank r = s*D + j.
//   1. inside every server, reduce-scatter by chunks (level 0): device j
//      holds chunk j (blocks j, D+j, ...) summed over its server;
//   2. among the devices j of all servers, reduce-scatter chunk j (level 1):
//      device j of server s keeps block s*D+j, summed over the cluster.
// Fabric bytes per device: (S-1)/S n/D.
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalReduceScatter(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  Phases phases;
  phases.push_back(sg.inEveryServer(lv.intra[0], &ServerGroups::serverByChunks, spec));
  phases.push_back(sg.acrossServers(lv.inter[0], &ServerGroups::peersOnChunk, spec));
  return phases;
}

} // namespace collsim
