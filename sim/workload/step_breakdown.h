// Where each device's time went in a parallel step (StepBreakdown), read
// off the executor's steps as they complete: a TraceSink that passes link
// activity on to a trace.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "sim/trace/trace_sink.h"
#include "sim/workload/parallel_step_schedule.h"
#include "sim/workload/step_simulation.h"

namespace collsim {

// Adds up each rank's stream-0 steps by part, and the DP buckets' spans.
class BreakdownSink final : public TraceSink {
public:
  // With a trace, rank 0's compute goes on a track of its own, each step named by `name`.
  BreakdownSink(const ParallelStepSchedule& s, TraceSink* trace,
                std::function<std::string(const ProgramItem&)> name = {})
      : schedule_(s), trace_(trace), name_(std::move(name)), parts_(std::size_t(s.ranks())),
        pipes_(std::size_t(s.ranks())), finish_(std::size_t(s.ranks()), 0), cursor_(std::size_t(s.ranks()), 0) {}
  void channelBusy(std::uint32_t channel, Time start, Time end) override {
    if (trace_) trace_->channelBusy(channel, start, end);
  }
  void message(const MessageTrace& m) override {
    if (trace_) trace_->message(m);
  }
  void counter(const CounterTrack& track, Time at, double value) override {
    if (trace_) trace_->counter(track, at, value);
  }
  void rankStep(const StepTrace& s) override {
    if (trace_) trace_->rankStep(s);
    const int rank = s.rank, stream = s.stream, step = s.step;
    const Time start = s.start, end = s.end;
    if (auto [bucket, which] = schedule_.bucketOfStream(stream); bucket >= 0) {
      bucketStep(rank, bucket, which, step, start, end);
      return;
    }
    if (stream == ParallelStepSchedule::kSideStream) return; // stream 0 waits for it, and counts that
    if (stream == ParallelStepSchedule::kGatherStream) {
      const std::vector<int>& first = schedule_.firstSteps(rank, 1);
      std::size_t i = std::size_t(std::upper_bound(first.begin(), first.end(), step) - first.begin()) - 1;
      if (schedule_.program(rank, 1)[i].kind == ProgramItem::Kind::Collective) bucketSpans_.emplace_back(start, end);
      return;
    }
    StepBreakdown& b = parts_[std::size_t(rank)];
    Time d = end - start;
    std::size_t& at = cursor_[std::size_t(rank)];
    at = schedule_.itemIndex(rank, step, at);
    if (trace_ && name_ && rank == 0 && schedule_.item(rank, at).kind == ProgramItem::Kind::Compute)
      trace_->span("compute (rank 0)", name_(schedule_.item(rank, at)), start, end);
    switch (schedule_.item(rank, at).part) {
    case StepPart::Compute: b.compute += d; break;
    case StepPart::TensorParallel: b.tensorParallel += d; break;
    case StepPart::ExpertParallel: b.expertParallel += d; break;
    case StepPart::Pipeline: pipelineStep(rank, schedule_.item(rank, at).kind, d); break;
    case StepPart::DataParallel: b.dataParallel += d; break;
    case StepPart::Optimizer: b.optimizer += d; break;
    case StepPart::ContextParallel: b.contextParallel += d; break;
    }
    finish_[std::size_t(rank)] = std::max(finish_[std::size_t(rank)], end);
  }
  int slowestRank() const { return int(std::max_element(finish_.begin(), finish_.end()) - finish_.begin()); }
  // A rank's breakdown, its pipeline waits split into transfer and bubble:
  // a send holds its step until delivered, so its time is transfer; a
  // receive waits for the neighbour to get there (bubble) and then for the
  // transfer, which took as long as the neighbour's matching send.
  StepBreakdown of(int rank) const {
    StepBreakdown b = parts_[std::size_t(rank)];
    const Pipe& mine = pipes_[std::size_t(rank)];
    std::size_t fromPrevious = 0, fromNext = 0;
    for (auto [kind, wait] : mine.receives) {
      bool previous = kind == ProgramItem::Kind::ReceivePrevious;
      const Pipe& peer = pipes_[std::size_t(schedule_.plan().neighbour(rank, previous ? -1 : 1))];
      const std::vector<Time>& sends = previous ? peer.sentNext : peer.sentPrevious;
      std::size_t& k = previous ? fromPrevious : fromNext;
      Time transfer = k < sends.size() ? std::min(wait, sends[k]) : 0;
      ++k;
      b.pipeline += transfer;
      b.bubble += wait - transfer;
    }
    for (Time t : mine.sentNext) b.pipeline += t;
    for (Time t : mine.sentPrevious) b.pipeline += t;
    return b;
  }
  std::vector<std::pair<Time, Time>>& bucketSpans() { return bucketSpans_; }
  // The buckets of `stage`: the earliest rank's ready and start, the last one's end.
  std::vector<BucketTiming> bucketTimings(int stage) const {
    return std::size_t(stage) < timings_.size() ? timings_[std::size_t(stage)] : std::vector<BucketTiming>{};
  }

private:
  struct Pipe {
    std::vector<Time> sentNext, sentPrevious;                      // step times, in order
    std::vector<std::pair<ProgramItem::Kind, Time>> receives;       // in order
  };
  void pipelineStep(int rank, ProgramItem::Kind kind, Time d) {
    Pipe& p = pipes_[std::size_t(rank)];
    if (kind == ProgramItem::Kind::SendNext) p.sentNext.push_back(d);
    else if (kind == ProgramItem::Kind::SendPrevious) p.sentPrevious.push_back(d);
    else p.receives.emplace_back(kind, d);
  }

  // A step of bucket `bucket`'s stream `which`: its collective's steps are
  // communication; the first stream's gate, copy in and collective give
  // the bucket's times.
  void bucketStep(int rank, int bucket, int which, int step, Time start, Time end) {
    if (which > 0) {
      if (step > 0) bucketSpans_.emplace_back(start, end); // after its wait for the copy in
      return;
    }
    const ParallelStepSchedule::BucketSteps steps = schedule_.bucketSteps(rank, bucket);
    if (step >= steps.collectiveFrom && step < steps.collectiveTo) bucketSpans_.emplace_back(start, end);
    const std::size_t stage = std::size_t(schedule_.stageOf(rank));
    if (timings_.size() <= stage) timings_.resize(stage + 1);
    std::vector<BucketTiming>& t = timings_[stage];
    if (t.size() <= std::size_t(bucket)) t.resize(std::size_t(bucket) + 1, BucketTiming{0, {}, kNever, kNever, 0});
    BucketTiming& b = t[std::size_t(bucket)];
    if (step == 0) b.ready = std::min(b.ready, end);
    if (step == steps.collectiveFrom - 1) b.start = std::min(b.start, end);
    if (step == steps.collectiveTo - 1) b.end = std::max(b.end, end);
  }
  static constexpr Time kNever = std::numeric_limits<Time>::max();

  const ParallelStepSchedule& schedule_;
  TraceSink* trace_;
  std::function<std::string(const ProgramItem&)> name_;
  std::vector<StepBreakdown> parts_;
  std::vector<Pipe> pipes_;
  std::vector<Time> finish_;
  std::vector<std::size_t> cursor_; // per rank: the program item of its last step
  std::vector<std::pair<Time, Time>> bucketSpans_;
  std::vector<std::vector<BucketTiming>> timings_; // per stage, per bucket
};


} // namespace collsim
