// The symmetry of a training step: on a cluster whose servers are alike
// and joined by one switch, every data-parallel replica runs the same stage
// programs and sees the same network; inside a server of alike devices, so
// does every position of a TP group. A step can then simulate a few ranks
// for all of them, exactly (#40; rank_symmetry.h).
//
// For the replicas it looks for the smallest unit that fills whole servers,
// under which the cluster is symmetric (foldChannels) and each of the
// gradient group's collectives is too: a ring moves along with d -> d +
// unit, recursive halving-doubling with d -> d xor unit. Then, the same way,
// for the TP positions (t -> t + unit or t xor unit), under which every
// collective of the step must move along: the TP group's within the group,
// the others (EP, gradients) onto the like group of the next position.
// Where a digit has no unit, it is not moved, and `why` says what broke it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/executor/schedule_symmetry.h"
#include "sim/network/rank_symmetry.h"
#include "sim/workload/parallel_layout.h"

namespace collsim {

struct ReplicaSymmetry {
  std::optional<RankSymmetry> symmetry;
  std::vector<std::uint32_t> channelFold; // rank_symmetry.h
  std::string why;   // the replicas not moved: what broke them
  std::string tpWhy; // the TP positions not moved: what broke them
  // The symmetry and what broke the digits it does not move, or why there is none.
  std::string text() const;
  bool movesPositions() const; // the symmetry moves the TP positions

};

// A group's collective: its schedule over all ranks (as
// ParallelStepPlan::collective), its algorithm's name and its group.
struct GroupCollective {
  enum class Group : std::uint8_t { Tp, Ep, Gradient, ExpertDp };
  const Schedule* schedule;
  std::string algorithm;
  std::uint32_t elemSize = 1;
  Group group = Group::Gradient;
};

// `groupCollectives(rank)`: the collectives `rank` runs, on its TP and EP
// groups, its gradient (DP x CP) group and its expert-data-parallel group,
// in the same order for every rank. Under expert parallelism the unit of
// replicas is a whole number of EP groups (each of ep consecutive
// replicas), so that EP groups move onto EP groups.
// `positions`: look for the TP positions' digit too.
ReplicaSymmetry findReplicaSymmetry(const Cluster& cluster, const RankPlacement& placement,
                                    const std::function<std::vector<GroupCollective>(int rank)>& groupCollectives,
                                    bool positions = true);

} // namespace collsim
