// One optimizer step of hybrid-parallel training (tensor, pipeline and data
// parallelism) as a multi-stream schedule over every device of the cluster.
//
// Stream 0 of a rank runs its pipeline stage's program: the compute of each
// layer piece by piece, the blocking collectives of its TP group between
// the pieces, the sends and receives of activations and their gradients
// to the neighbouring stages, a wait for the gradient buckets, the
// optimizer and (ZeRO 1-2) the parameter AllGather. Stream 1 runs the
// stage's gather program (ZeRO 3: each layer's parameters gathered on the
// DP group, one layer ahead of stream 0, which waits for them; a
// distributed optimizer's overlapped gathers of the updated weights).
// Stream 2 runs the side program: collectives that run beside the compute
// of stream 0 (TP's under tp-comm-overlap, the input gradients' beside the
// weight gradients). The programs order each other with WaitFor items.
// Then the DP buckets, a stream each and one more for every further stream
// of a multi-stream collective: bucket b waits until stream 0 has produced
// its gradients in the last micro-batch's backward (and for bucket
// b - bucketsInFlight), copies them into its buffer when the framework
// does, runs its collective on the rank's DP group, overlapping the
// backward passes still running, and copies the result back. Its further
// streams start after the copy in; its first waits for them before the
// copy back.
//
// Programs are kept per stage (every TP and DP rank of a stage runs the
// same one); what differs per rank is resolved when its steps are
// generated: its stage, its neighbours, the schedules of its groups.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/core/units.h"

namespace collsim {

// Where a step of stream 0 goes in the step's breakdown.
enum class StepPart : std::uint8_t {
  Compute, TensorParallel, ExpertParallel, Pipeline, DataParallel, Optimizer, ContextParallel
};

struct ProgramItem {
  // RingShift: one step of the CP group's ring, `bytes` to the next rank
  // and from the previous, at once.
  enum class Kind : std::uint8_t {
    Compute, Collective, SendNext, SendPrevious, ReceiveNext, ReceivePrevious, WaitBuckets, WaitFor, RingShift
  };
  Kind kind = Kind::Compute;
  StepPart part = StepPart::Compute;
  Time duration = 0;   // Compute
  int collective = -1; // Collective: the rank's collective number (ParallelStepPlan::collective)
  Bytes bytes = 0;     // sends and receives
  // WaitFor: until item `waitItem` of program `waitProgram` (0 main, 1
  // gathers, 2 side) is done; -1: nothing to wait for.
  int waitProgram = 0, waitItem = -1;
  // The model layer whose pass (0 forward, 1 recompute, 2 backward) the
  // item belongs to, -1 none: what a trace calls it.
  std::int32_t layer = -1;
  std::uint8_t pass = 0;
};

struct StageProgram {
  std::vector<ProgramItem> items;   // stream 0
  std::vector<ProgramItem> gathers; // stream 1
  std::vector<ProgramItem> side;    // stream 2
  struct Bucket {
    int collective;     // the rank's collective number
    int readyAfterItem; // the bucket's gradients are all there once this item is done
    Time copy = 0;      // one copy into or out of the bucket's buffer (0: none, the gradients are the buffer)
  };
  std::vector<Bucket> buckets;
};

struct ParallelStepPlan {
  int ranks = 1;
  int bucketsInFlight = 1; // bucket b also waits for bucket b - bucketsInFlight to finish
  std::vector<StageProgram> stages;
  std::function<int(int rank)> stageOf;
  // A schedule over all ranks in which `rank` takes part: single-stream,
  // but for the buckets'.
  std::function<const Schedule*(int rank, int collective)> collective;
  // The rank of the next (+1) or previous (-1) stage on `rank`'s pipeline.
  std::function<int(int rank, int direction)> neighbour;
  // The next (+1) or previous (-1) rank of `rank`'s CP ring.
  std::function<int(int rank, int direction)> ring;
  // What a trace calls a program item ("backward block.3").
  std::function<std::string(const ProgramItem&)> itemName;
};

class ParallelStepSchedule final : public Schedule {
public:
  explicit ParallelStepSchedule(ParallelStepPlan plan);
  // Only `ranks` can be walked (an estimate's sample): numbering every
  // rank's steps costs as much as the walk of all of them.
  ParallelStepSchedule(ParallelStepPlan plan, const std::vector<int>& ranks);
  ~ParallelStepSchedule() override;
  int ranks() const override { return plan_.ranks; }
  int stepCount(int) const override { return 0; }
  void appendOps(int, int, std::vector<Op>&) const override {}
  int streamCount() const override { return int(streams_.size()); }
  const Schedule& stream(int i) const override { return *streams_[std::size_t(i)]; }

  static constexpr int kProgramStream = 0, kGatherStream = 1, kSideStream = 2, kPrograms = 3;
  // Bucket b's streams: bucketStream(b) and the next bucketWidth(b) - 1.
  int bucketCount() const { return int(bucketFirst_.size()); }
  int bucketStream(int bucket) const { return bucketFirst_[std::size_t(bucket)]; }
  int bucketWidth(int bucket) const { return bucketWidth_[std::size_t(bucket)]; }
  // The bucket whose streams hold `stream` and which of them it is; -1, -1 for a program's.
  std::pair<int, int> bucketOfStream(int stream) const;
  // Rank `rank`'s bucket b (nullptr when its stage has fewer), and the
  // steps of its first stream: [0, collectiveFrom) gate and copy in,
  // [collectiveFrom, collectiveTo) the collective's first stream and the
  // wait for its others, then the copy back.
  const StageProgram::Bucket* bucket(int rank, int b) const;
  struct BucketSteps {
    int collectiveFrom = 0, collectiveTo = 0, total = 0;
  };
  BucketSteps bucketSteps(int rank, int b) const;
  // The number of the program item that step `step` of stream 0 of `rank`
  // belongs to; `from` is an item at or before it (walks forward from there:
  // O(1) for a caller that follows the steps in order).
  std::size_t itemIndex(int rank, int step, std::size_t from = 0) const;
  const ProgramItem& item(int rank, std::size_t index) const {
    return plan_.stages[std::size_t(plan_.stageOf(rank))].items[index];
  }
  const std::vector<ProgramItem>& program(int rank, int which) const {
    const StageProgram& p = plan_.stages[std::size_t(plan_.stageOf(rank))];
    return which == kProgramStream ? p.items : which == kGatherStream ? p.gathers : p.side;
  }
  int stageOf(int rank) const { return plan_.stageOf(rank); }
  const ParallelStepPlan& plan() const { return plan_; }

  // Per rank: the first step of every item of its program (0 main, 1
  // gathers, 2 side), and one past the last (ranks whose collectives take the same
  // numbers of steps share it).
  const std::vector<int>& firstSteps(int rank, int which = 0) const {
    return *firstSteps_[std::size_t(which)][std::size_t(rank)];
  }

private:
  ParallelStepPlan plan_;
  std::vector<std::unique_ptr<Schedule>> streams_;
  std::vector<std::shared_ptr<const std::vector<int>>> firstSteps_[kPrograms];
  std::vector<int> bucketFirst_, bucketWidth_;
};

} // namespace collsim
