// Whether a schedule looks alike from every member of a rank symmetry's
// classes: each rank's program, its peers moved along, is its image's
// (rank_symmetry.h). A training step's replicas and TP positions and a
// stand-alone collective's servers fold only where this holds.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/network/rank_symmetry.h"

namespace collsim {

// Calls f(op) for every operation of `rank` in `schedule`, on every stream.
template <class F> void forEachOp(const Schedule& schedule, int rank, const F& f) {
  std::vector<Op> ops;
  for (int s = 0; s < schedule.streamCount(); ++s) {
    const Schedule& stream = schedule.stream(s);
    for (int step = 0; step < stream.stepCount(rank); ++step) {
      ops.clear();
      stream.appendOps(rank, step, ops);
      for (const Op& op : ops) f(op);
    }
  }
}

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
// movesAlong(schedule, members, symmetry, slack) on about `stepsWalked`
// steps of each stream spread evenly, the last among them: a check of what
// an algorithm does by construction, which catches what the buffer's split
// makes uneven (a block an element larger).
bool movesAlongOnSteps(const Schedule& schedule, const std::vector<int>& members, const RankSymmetry& symmetry,
                       int stepsWalked, std::uint64_t slack = 0);

} // namespace collsim
