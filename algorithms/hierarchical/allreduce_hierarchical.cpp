// Hierarchical AllReduce (see hierarchical.h):
//   1. reduce-scatter inside every server (level 0): device j holds block j
//      of D summed over its server;
//   2. all-reduce block j among the devices j of all servers (level 1);
//   3. all-gather inside every server (level 0).
// Fabric bytes per device: 2 (S-1)/S n/D with a bandwidth-optimal level 1.
// Pipelined, a level-1 tree runs as two stages, its reduce up and its
// broadcast down (AlgorithmEntry::phaseStages).
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/hierarchical/server_groups.h"

namespace collsim {

Phases hierarchicalAllReduce(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec) {
  ServerGroups sg(g, spec.devicesPerServer);
  Phases phases;
  phases.push_back(sg.inEveryServer(lv.intra[0], &ServerGroups::server, spec));       // reduce-scatter
  for (const AlgorithmEntry& stage : stagesOf(lv.inter[0], lv.pipelined))                // all-reduce
    phases.push_back(sg.acrossServers(stage, &ServerGroups::peersOnBlock, spec));
  phases.push_back(sg.inEveryServer(lv.intra[1], &ServerGroups::server, spec));       // all-gather
  return phases;
}

} // namespace collsim
