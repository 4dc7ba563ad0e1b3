#include "sim/workload/step_schedule.h"

namespace collsim {

FramedStream::FramedStream(int ranks, std::vector<StepFn> before, const Schedule* inner, int streamShift,
                           std::vector<int> innerPrefix, std::vector<StepFn> after)
    : ranks_(ranks), before_(std::move(before)), inner_(inner), streamShift_(streamShift),
      innerPrefix_(std::move(innerPrefix)), after_(std::move(after)) {}

int FramedStream::stepCount(int rank) const {
  return int(before_.size()) + (inner_ ? inner_->stepCount(rank) : 0) + int(after_.size());
}

void FramedStream::appendOps(int rank, int step, std::vector<Op>& out) const {
  if (step < int(before_.size())) return before_[std::size_t(step)](rank, out);
  step -= int(before_.size());
  int innerSteps = inner_ ? inner_->stepCount(rank) : 0;
  if (step >= innerSteps) return after_[std::size_t(step - innerSteps)](rank, out);
  std::size_t first = out.size();
  inner_->appendOps(rank, step, out);
  for (std::size_t i = first; i < out.size(); ++i)
    if (out[i].kind == OpKind::Wait) {
      out[i].offset += std::uint64_t(innerPrefix_[std::size_t(out[i].peer)]);
      out[i].peer += streamShift_;
    }
}

namespace {

using StepFn = FramedStream::StepFn;

StepFn compute(Time duration) {
  return [duration](int, std::vector<Op>& out) { out.push_back(Op{OpKind::Compute, 0, 0, 0, 0, duration}); };
}

Op waitFor(int stream, int steps) { return Op{OpKind::Wait, stream, std::uint64_t(steps), 0}; }

} // namespace

TrainingStepSchedule::TrainingStepSchedule(const StepPlan& plan) : ranks_(plan.ranks) {
  const std::size_t buckets = plan.collectives.size();
  // Stream numbers first: waits name streams that are built later.
  int next = 1;
  for (const Schedule* c : plan.collectives) {
    bucketStream_.push_back(next);
    next += c->streamCount();
  }
  streams_.resize(std::size_t(next));
  // A stream's step count, looked up when a Wait is generated.
  auto stepsOf = [this](int stream, int rank) { return streams_[std::size_t(stream)]->stepCount(rank); };

  // Compute.
  std::vector<StepFn> steps;
  for (int mb = 1; mb < plan.accumulation; ++mb) {
    steps.push_back(compute(plan.forward));
    computeNames_.push_back("forward (micro-batch " + std::to_string(mb) + ")");
    Time backward = 0;
    for (const auto& piece : plan.backward.pieces) backward += piece.duration;
    steps.push_back(compute(backward));
    computeNames_.push_back("backward (micro-batch " + std::to_string(mb) + ", accumulate)");
  }
  steps.push_back(compute(plan.forward));
  computeNames_.push_back(plan.accumulation > 1 ? "forward (micro-batch " + std::to_string(plan.accumulation) + ")"
                                                : "forward");
  const int stepsBeforeBackward = int(steps.size()); // compute steps before the last backward
  for (const auto& piece : plan.backward.pieces) {
    steps.push_back(compute(piece.duration));
    computeNames_.push_back("backward " + piece.layer);
  }
  std::vector<int> firstStreams = bucketStream_;
  steps.push_back([firstStreams, stepsOf](int rank, std::vector<Op>& out) {
    for (int s : firstStreams) out.push_back(waitFor(s, stepsOf(s, rank)));
  });
  computeNames_.push_back("wait for the gradients");
  steps.push_back(compute(plan.optimizer));
  computeNames_.push_back("optimizer");
  streams_[0] = std::make_unique<FramedStream>(ranks_, std::move(steps), nullptr, 0, std::vector<int>{},
                                               std::vector<StepFn>{});

  const int backwardDone = stepsBeforeBackward + int(plan.backward.pieces.size());
  for (std::size_t b = 0; b < buckets; ++b) {
    const Schedule& c = *plan.collectives[b];
    const int first = bucketStream_[b];
    const int ready = plan.overlap ? stepsBeforeBackward + plan.backward.buckets[b].readyAfterPiece + 1 : backwardDone;
    const int previous = b >= std::size_t(plan.pipeline) ? bucketStream_[b - std::size_t(plan.pipeline)] : -1;
    StepFn gate = [ready, previous, stepsOf](int rank, std::vector<Op>& out) {
      out.push_back(waitFor(kComputeStream, ready));
      if (previous >= 0) out.push_back(waitFor(previous, stepsOf(previous, rank)));
    };
    const int extra = c.streamCount() - 1;
    std::vector<StepFn> after;
    if (extra > 0)
      after.push_back([first, extra, stepsOf](int rank, std::vector<Op>& out) {
        for (int s = first + 1; s <= first + extra; ++s) out.push_back(waitFor(s, stepsOf(s, rank)));
      });
    after.push_back(compute(plan.copyTimes[b]));
    // The inner streams wait for each other by their own step counts: the
    // first runs the gate and the copy in before its own, the others a wait.
    std::vector<int> prefix(std::size_t(c.streamCount()), 1);
    prefix[0] = 2;
    streams_[std::size_t(first)] = std::make_unique<FramedStream>(
        ranks_, std::vector<StepFn>{gate, compute(plan.copyTimes[b])}, &c.stream(0), first, prefix, std::move(after));
    for (int s = 1; s <= extra; ++s) {
      StepFn afterCopyIn = [first](int, std::vector<Op>& out) { out.push_back(waitFor(first, 2)); };
      streams_[std::size_t(first + s)] = std::make_unique<FramedStream>(
          ranks_, std::vector<StepFn>{afterCopyIn}, &c.stream(s), first, prefix, std::vector<StepFn>{});
    }
  }
}

} // namespace collsim
