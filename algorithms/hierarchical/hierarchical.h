// Hierarchical collectives, composed from flat algorithms (HCCL's
// "level 0" inside a server and "level 1" between servers). One file per
// collective; server_groups.h builds the groups and views.
//
// Ranks are laid out server by server: rank s*D + j is device j of server s.
// AllReduce (HCCL's hierarchical AllReduce, the seed article's "ring inside,
// tree between"):
//   1. inside every server, reduce-scatter the buffer over its D devices
//      (level-0 algorithm): device j holds block j summed over the server;
//   2. between servers, all-reduce block j among the devices j of all
//      servers (level-1 algorithm): block j is summed over the cluster;
//   3. inside every server, all-gather the blocks (level 0).
// Bytes over the fabric per device: 2 (S-1)/S n/D for a bandwidth-optimal
// level 1, against 2 (p-1)/p n for a flat ring that crosses it.
// The pipelined variant ("hierpipe") cuts the buffer into 4 slices and runs
// them as a software pipeline (core/pipeline.h): each phase handles the
// slices in order, so slice k's intra-server reduce-scatter overlaps slice
// k-1's inter-server all-reduce, as in HCCL's pipeline algorithm.
#pragma once

#include "algorithms/core/registry.h"

namespace collsim {

struct HierarchyChoice {
  std::string intra; // level 0: ring or mesh
  std::string inter; // level 1: ring, rhd, nhr, nb, ...
  int slices = 1;    // > 1: pipelined
};

// Parses "hier:INTRA+INTER", "hierpipe:INTRA+INTER" and HCCL's
// "level0:INTRA;level1:INTER" (level0 NA = ring, HCCL's H-D_R = rhd).
// Returns false if `name` is none of these forms.
bool parseHierarchyName(const std::string& name, HierarchyChoice& out);

// Every hierarchical name for `op`: hier:A+B (and hierpipe:A+B where
// slicing keeps the collective what it is) for each A that exists for all of
// the server level's collectives and each B for the level between servers.
std::vector<std::string> hierarchyNames(Collective op);

// The registry entry of a hierarchical `op` (AllReduce, ReduceScatter,
// AllGather, Broadcast); nothing if the level algorithms do not exist.
std::optional<AlgorithmEntry> hierarchicalEntry(Collective op, const HierarchyChoice& choice, const std::string& name);

// Builders for each collective; `levels` are the flat entries they compose.
struct HierarchyLevels {
  std::vector<AlgorithmEntry> intra; // phases inside servers, in order of use
  std::vector<AlgorithmEntry> inter; // phases between servers
  bool pipelined = false;            // the phases are stages of a pipeline over slices
};
// `level` as the phases it runs: its stages one by one (AlgorithmEntry::
// phaseStages) when pipelined, else itself.
std::vector<AlgorithmEntry> stagesOf(const AlgorithmEntry& level, bool pipelined);
// Each returns its phases, to be run in sequence (or pipelined over slices).
using Phases = std::vector<SchedulePtr>;
Phases hierarchicalAllReduce(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec);
Phases hierarchicalReduceScatter(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec);
Phases hierarchicalAllGather(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec);
Phases hierarchicalBroadcast(const HierarchyLevels& lv, const GroupView& g, const CollectiveSpec& spec);

} // namespace collsim
