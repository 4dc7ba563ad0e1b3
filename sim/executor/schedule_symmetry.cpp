#include "sim/executor/schedule_symmetry.h"

#include <algorithm>

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Whether `theirs` runs for y what `mine` runs for x, peers moved along by
// generator g (offsets aside: they place data, not time), sizes within
// `slack` bytes; on every step, or on about `stepsWalked` of them spread
// evenly (the last among them).
bool streamMovesAlong(const Schedule& mine, int x, const Schedule& theirs, int y, const RankSymmetry& symmetry, int g,
                      std::uint64_t slack, std::vector<Op>& here, std::vector<Op>& there, int stepsWalked = 0) {
  const int steps = mine.stepCount(x);
  if (theirs.stepCount(y) != steps) return false;
  const int stride = stepsWalked > 0 ? std::max(1, steps / stepsWalked) : 1;
  for (int walked = 0; walked < steps; walked += stride) {
    const int step = walked + stride >= steps ? steps - 1 : walked;
    here.clear(), there.clear();
    mine.appendOps(x, step, here);
    theirs.appendOps(y, step, there);
    if (here.size() != there.size()) return false;
    for (std::size_t i = 0; i < here.size(); ++i) {
      const Op &a = here[i], &b = there[i];
      const std::uint64_t apart = a.bytes > b.bytes ? a.bytes - b.bytes : b.bytes - a.bytes;
      if (a.kind != b.kind || apart > slack || a.durationPs != b.durationPs || a.net != b.net || a.group != b.group)
        return false;
      // A copy's peer is unused (some schedules put the rank there); a wait's is its stream.
      if (communicates(a) ? symmetry.generate(g, a.peer) != b.peer : a.kind != OpKind::Copy && a.peer != b.peer)
        return false;
    }
  }
  return true;
}

bool movesAlongWalking(const std::function<const Schedule*(int rank)>& scheduleOf, const std::vector<int>& members,
                       const RankSymmetry& symmetry, std::uint64_t slack, int stepsWalked) {
  std::vector<Op> here, there;
  for (int g = 0; g < symmetry.generators(); ++g) {
    for (int x : members) {
      const int y = symmetry.generate(g, x);
      const Schedule &mine = *scheduleOf(x), &theirs = *scheduleOf(y);
      if (mine.streamCount() != theirs.streamCount()) return false;
      for (int stream = 0; stream < mine.streamCount(); ++stream) // a single-stream schedule is its own stream 0
        if (!streamMovesAlong(mine.stream(stream), x, theirs.stream(stream), y, symmetry, g, slack, here, there,
                              stepsWalked))
          return false;
    }
  }
  return true;
}

} // namespace

bool movesAlong(const std::function<const Schedule*(int rank)>& scheduleOf, const std::vector<int>& members,
                const RankSymmetry& symmetry, std::uint64_t slack) {
  return movesAlongWalking(scheduleOf, members, symmetry, slack, 0);
}

bool movesAlongOnSteps(const Schedule& schedule, const std::vector<int>& members, const RankSymmetry& symmetry,
                       int stepsWalked, std::uint64_t slack) {
  return movesAlongWalking([&](int) { return &schedule; }, members, symmetry, slack, stepsWalked);
}

bool movesAlong(const Schedule& schedule, const std::vector<int>& members, const RankSymmetry& symmetry,
                std::uint64_t slack) {
  return movesAlong([&](int) { return &schedule; }, members, symmetry, slack);
}

bool movesAlongByConstruction(const std::string& name, int members, RankSymmetry::Law law) {
  // hier:A+B: A inside each server, which the shift moves whole; B between
  // the servers' members at the same place, whose server numbers it moves.
  const std::size_t plus = name.find('+');
  const std::string between = name.rfind("hier:", 0) == 0 && plus != std::string::npos ? name.substr(plus + 1) : name;
  if (law == RankSymmetry::Law::Cyclic) return between == "ring";
  return between == "rhd" && powerOfTwo(members);
}

} // namespace collsim
