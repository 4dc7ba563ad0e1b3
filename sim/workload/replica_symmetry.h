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

// A group's collective: its schedule over all ranks (as
// ParallelStepPlan::collective) and its algorithm's name.
struct GroupCollective {
  const Schedule* schedule;
  std::string algorithm;
  std::uint32_t elemSize = 1;
  bool experts = false; // on the expert-data-parallel group, not the gradient group
};

// `gradientCollectives(rank)`: the collectives `rank` runs on its gradient
// (DP x CP) group and on its expert-data-parallel group. Under expert
// parallelism the unit is a whole number of EP groups (each of ep
// consecutive replicas), so that EP groups move onto EP groups.
ReplicaSymmetry findReplicaSymmetry(const Cluster& cluster, const RankPlacement& placement,
                                    const std::function<std::vector<GroupCollective>(int rank)>& gradientCollectives);

// Checking a schedule member by member costs as much as walking every
// member's steps: a group larger than this, whose members are the replicas
// in order, is trusted to move along as its algorithm does by construction
// (a ring with d -> d + 1, halving-doubling on a power of two with
// d -> d xor 2^j), which tests check past it.
inline constexpr int kLargestGroupChecked = 256;

// Whether algorithm `name` on `members` ranks moves along with `law` by
// construction (then checked up to kLargestGroupChecked members).
bool movesAlongByConstruction(const std::string& name, int members, RankSymmetry::Law law);

// Whether every member of `members` sees `schedule` alike under each of the
// symmetry's generators: as many steps, and each step's operations with
// their peers moved along (offsets aside: they place data, not time), their
// sizes within `slack` bytes (an uneven split gives some blocks an element
// more: elemSize x members covers it, and moves a step by picoseconds).
bool movesAlong(const Schedule& schedule, const std::vector<int>& members, const RankSymmetry& symmetry,
                std::uint64_t slack = 0);

} // namespace collsim
