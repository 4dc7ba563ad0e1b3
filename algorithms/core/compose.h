// Composition of schedules: one after another on each rank.
#pragma once

#include <functional>
#include <vector>

#include "algorithms/core/lazy.h"
#include "algorithms/core/schedule.h"

namespace collsim {

// Each rank runs the steps of parts[0], then those of parts[1], ...
// Ordering is per rank: rank r may start part 1 while rank q is still in
// part 0; only data dependencies (matched receives) hold ranks together.
// Each part is a phase of the collective, unless tagged otherwise (chunk
// loops: each part a chunk; a pipeline's slice: phases and waits).
class SequenceSchedule final : public Schedule {
public:
  // What a part is, in traces: its phase and chunk (-1: the part's own).
  struct PartTag {
    int phase = -1, chunk = -1;
  };
  explicit SequenceSchedule(std::vector<SchedulePtr> parts, std::vector<PartTag> tags = {});
  int ranks() const override { return parts_.front()->ranks(); }
  int stepCount(int rank) const override;
  void appendOps(int rank, int step, std::vector<Op>& out) const override;
  StepPlace place(int rank, int step) const override;

private:
  // The part `step` of `rank` falls in, and the step within it.
  std::pair<std::size_t, int> partOf(int rank, int step) const;

  std::vector<SchedulePtr> parts_;
  std::vector<PartTag> tags_;
  int phases_ = 0;
  // Per rank: the step count of every part when they are all equal (chunk
  // loops of one algorithm: a step finds its part by division), else -1.
  int uniformSteps(int rank) const;
  LazyValues<int> uniformSteps_;
};

SchedulePtr sequence(SchedulePtr first, SchedulePtr second);

// Parts over disjoint sets of ranks, run at the same time: rank r takes its
// steps from part partOf(r) (none if -1). The caller knows which part each
// rank is in: asking every part about every rank costs O(parts x ranks).
// Part i is built by build(i) when one of its ranks is first asked about: a
// hierarchy on 32,768 servers has as many parts, and an estimate looks at
// six ranks.
class DisjointSchedule final : public Schedule {
public:
  using PartOf = std::function<int(int rank)>;
  using BuildPart = std::function<SchedulePtr(std::size_t part)>;
  DisjointSchedule(int ranks, std::size_t parts, PartOf partOf, BuildPart build);
  int ranks() const override { return ranks_; }
  int stepCount(int rank) const override {
    const Schedule* p = part(rank);
    return p ? p->stepCount(rank) : 0;
  }
  void appendOps(int rank, int step, std::vector<Op>& out) const override { part(rank)->appendOps(rank, step, out); }
  StepPlace place(int rank, int step) const override { return part(rank)->place(rank, step); }

private:
  // The part `rank` is in, built if it is not yet; nullptr if none (a rank
  // with no part has no steps to ask about).
  const Schedule* part(int rank) const;

  int ranks_;
  std::size_t parts_;
  PartOf partOf_;
  BuildPart build_;
  LazyValues<SchedulePtr> built_;
};

// Single-stream parts run side by side as independent streams (they must
// touch disjoint bytes). The streams are the steps; the schedule itself has
// none, so it cannot be sequenced after or before another one.
class StreamsSchedule final : public Schedule {
public:
  explicit StreamsSchedule(std::vector<SchedulePtr> parts);
  int ranks() const override { return parts_.front()->ranks(); }
  int stepCount(int) const override { return 0; }
  void appendOps(int, int, std::vector<Op>&) const override {}
  int streamCount() const override { return int(parts_.size()); }
  const Schedule& stream(int i) const override { return *parts_[i]; }

private:
  std::vector<SchedulePtr> parts_;
};

// One step on every rank that `steps(rank)` is positive for: wait until
// stream `stream` of the rank has completed that many steps. Put it in a
// sequence to hold a stream back until another one has got that far.
class WaitStep final : public Schedule {
public:
  WaitStep(int ranks, int stream, std::function<int(int rank)> steps)
      : ranks_(ranks), stream_(stream), steps_(std::move(steps)) {}
  int ranks() const override { return ranks_; }
  int stepCount(int rank) const override { return steps_(rank) > 0 ? 1 : 0; }
  void appendOps(int rank, int, std::vector<Op>& out) const override {
    out.push_back(Op{OpKind::Wait, stream_, std::uint64_t(steps_(rank)), 0});
  }

private:
  int ranks_;
  int stream_;
  std::function<int(int)> steps_;
};

} // namespace collsim
