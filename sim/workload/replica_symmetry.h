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
// The same where each rank runs a schedule of its own group's
// (`scheduleOf(rank)`), the members' images another group's.
bool movesAlong(const std::function<const Schedule*(int rank)>& scheduleOf, const std::vector<int>& members,
                const RankSymmetry& symmetry, std::uint64_t slack = 0);

} // namespace collsim
