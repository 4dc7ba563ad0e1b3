// Which algorithm a group of a parallel layout runs (TP, DP, EP groups, ...)
// when the scenario says `algo: auto`.
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "topologies/cluster.h"

namespace collsim {

// `algo: auto` under a layout: HCCL's rule for a group's shape
// (hccl-facts.md). Inside one server the hardware decides (level 0): mesh
// on a full mesh of HCCS links (910B) or a switch, else ring. Between
// servers (level 1) HCCL's static rule: H-D (rhd) for 8 or more servers or
// a power of two, else ring. An AllReduce of a group with several members
// on each of several servers runs both levels (hier:LEVEL0+LEVEL1); its
// ReduceScatter and AllGather run level 1 over the whole group (the
// hierarchical ones would cut every block into a piece per server). An
// AllToAll (expert parallelism) runs pairwise, HCCL's level-1 AllToAll.
std::string hcclGroupAlgorithm(const Cluster& cluster, Collective op, const std::vector<int>& members);

// How many of `members` each server holds, when every server that holds
// some holds as many; else 0.
int membersPerServer(const Cluster& cluster, const std::vector<int>& members);

} // namespace collsim
