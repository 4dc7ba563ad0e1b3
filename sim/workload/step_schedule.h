// One optimizer step of data-parallel training as a schedule: the device's
// compute on one stream, each gradient bucket's AllReduce on streams of its
// own, tied together with Wait operations (HCCL's stream events), so that
// the executor replays compute and communication on the simulated network
// together, buckets in flight sharing its links.
//
// Stream 0, compute:  (forward, backward) x (k-1) micro-batches that only
//   accumulate; forward; backward piece by piece; wait for every bucket;
//   optimizer.
// Bucket b, first stream:  wait until the bucket is ready (its backward
//   piece is done, or all of backward without overlap) and until bucket
//   b - pipeline is done; copy the gradients into the bucket buffer; the
//   AllReduce; copy the result back. Further streams of a multi-stream
//   AllReduce start after the copy in, and the first stream waits for them
//   before copying back.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/workload/gradient_buckets.h"

namespace collsim {

struct StepPlan {
  int ranks = 1;
  int accumulation = 1;
  int pipeline = 1;
  bool overlap = true;
  Time forward = 0, optimizer = 0;
  BackwardPlan backward;
  std::vector<const Schedule*> collectives; // per bucket (owned by the caller)
  std::vector<Time> copyTimes;              // per bucket: one copy into or out of its buffer
};

// A stream built of steps before, the steps of one stream of another
// schedule, and steps after. The inner schedule's Wait operations are
// renumbered: its stream k is stream streamShift + k here, and that stream
// runs innerPrefix[k] steps of its own before the inner ones.
class FramedStream final : public Schedule {
public:
  using StepFn = std::function<void(int rank, std::vector<Op>& out)>;
  FramedStream(int ranks, std::vector<StepFn> before, const Schedule* inner, int streamShift,
               std::vector<int> innerPrefix, std::vector<StepFn> after);
  int ranks() const override { return ranks_; }
  int stepCount(int rank) const override;
  void appendOps(int rank, int step, std::vector<Op>& out) const override;

private:
  int ranks_;
  std::vector<StepFn> before_;
  const Schedule* inner_;
  int streamShift_;
  std::vector<int> innerPrefix_;
  std::vector<StepFn> after_;
};

class TrainingStepSchedule final : public Schedule {
public:
  explicit TrainingStepSchedule(const StepPlan& plan);
  int ranks() const override { return ranks_; }
  int stepCount(int) const override { return 0; }
  void appendOps(int, int, std::vector<Op>&) const override {}
  int streamCount() const override { return int(streams_.size()); }
  const Schedule& stream(int i) const override { return *streams_[i]; }

  static constexpr int kComputeStream = 0;
  int bucketStream(int bucket) const { return bucketStream_[bucket]; }
  const std::string& computeStepName(int step) const { return computeNames_[step]; }
  // The compute stream ends with two steps: the wait for every bucket, then the optimizer.
  int computeStepCount() const { return int(computeNames_.size()); }

private:
  int ranks_;
  std::vector<std::unique_ptr<FramedStream>> streams_;
  std::vector<int> bucketStream_;
  std::vector<std::string> computeNames_;
};

} // namespace collsim
