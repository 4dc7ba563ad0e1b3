// Hierarchical Broadcast from root r = s_r*D + j_r:
//   1. among the devices j_r of all servers, broadcast from server s_r
//      (level 1);
//   2. inside every server, broadcast from device j_r (level 0).
// Fabric bytes: n into every server once. (HCCL can also scatter inside the
// root's server first and broadcast D slices between servers in parallel;
// that variant is not built here.)
#include "algorithms/core/compose.h"
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalBroadcast(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  const int rootServer = spec.root / sg.devices(), rootDevice = spec.root % sg.devices();
  std::vector<GroupView> servers;
  for (int s = 0; s < sg.servers(); ++s) servers.push_back(sg.server(s));
  Phases phases;
  phases.push_back(ServerGroups::overViews(lv.inter[0], {sg.peers(rootDevice)}, spec, rootServer));
  phases.push_back(ServerGroups::overViews(lv.intra[0], servers, spec, rootDevice));
  return phases;
}

} // namespace collsim
