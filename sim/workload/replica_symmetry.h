// The symmetry of a training step's data-parallel replicas: on a cluster
// whose servers are alike and joined by one switch, every replica runs the
// same stage programs and sees the same network, so a step can simulate a
// few replicas for all of them, exactly (#40; rank_symmetry.h).
//
// It looks for the smallest unit of replicas that fills whole servers, under
// which the cluster is symmetric (foldChannels) and each of the gradient
// group's collectives is too: a ring moves along with d -> d + unit,
// recursive halving-doubling with d -> d xor unit. Where none is, the step
// runs in full and `why` says what broke the symmetry.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/network/rank_symmetry.h"
#include "sim/workload/parallel_layout.h"

namespace collsim {

struct ReplicaSymmetry {
  std::optional<RankSymmetry> symmetry;
  std::vector<std::uint32_t> channelFold; // rank_symmetry.h
  std::string why;                        // no symmetry: what broke it
};

// `gradientCollectives(rank)`: the collectives `rank` runs on its gradient
// (DP x CP) group, each over all ranks (as ParallelStepPlan::collective).
ReplicaSymmetry findReplicaSymmetry(const Cluster& cluster, const RankPlacement& placement,
                                    const std::function<std::vector<const Schedule*>(int rank)>& gradientCollectives);

// Whether every member of `members` sees `schedule` alike under each of the
// symmetry's generators: as many steps, and each step's operations with
// their peers moved along (offsets aside: they place data, not time).
bool movesAlong(const Schedule& schedule, const std::vector<int>& members, const RankSymmetry& symmetry);

} // namespace collsim
