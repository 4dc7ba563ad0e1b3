// Hierarchical Broadcast from root r = s_r*D + j_r:
//   1. among the devices j_r of all servers, broadcast from server s_r
//      (level 1);
//   2. inside every server, broadcast from device j_r (level 0).
// Fabric bytes: n into every server once. (HCCL can also scatter inside the
// root's server first and broadcast D slices between servers in parallel;
// that variant is not built here.)
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalBroadcast(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  const int rootServer = spec.root / sg.devices(), rootDevice = spec.root % sg.devices();
  Phases phases;
  phases.push_back(sg.acrossServers(lv.inter[0], &ServerGroups::peers, spec, rootServer, rootDevice));
  phases.push_back(sg.inEveryServer(lv.intra[0], &ServerGroups::server, spec, rootDevice));
  return phases;
}

} // namespace collsim
