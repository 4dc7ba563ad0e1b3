// Hierarchical AllReduce (see hierarchical.h):
//   1. reduce-scatter inside every server (level 0): device j holds block j
//      of D summed over its server;
//   2. all-reduce block j among the devices j of all servers (level 1);
//   3. all-gather inside every server (level 0).
// Fabric bytes per device: 2 (S-1)/S n/D with a bandwidth-optimal level 1.
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalAllReduce(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  Phases phases;
  phases.push_back(sg.inEveryServer(lv.intra[0], &ServerGroups::server, spec));       // reduce-scatter
  phases.push_back(sg.acrossServers(lv.inter[0], &ServerGroups::peersOnBlock, spec)); // all-reduce
  phases.push_back(sg.inEveryServer(lv.intra[1], &ServerGroups::server, spec));       // all-gather
  return phases;
}

} // namespace collsim
