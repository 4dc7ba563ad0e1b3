#include "sim/workload/parallel_step_schedule.h"

#include <algorithm>
#include <stdexcept>

namespace collsim {
namespace {

using Kind = ProgramItem::Kind;

// Program 0 (stream 0), 1 (stream 1, the gathers) or 2 (stream 2, the
// side) of the rank's stage.
class ProgramStream final : public Schedule {
public:
  ProgramStream(const ParallelStepSchedule& s, int which) : s_(s), which_(which) {}
  int ranks() const override { return s_.ranks(); }
  int stepCount(int rank) const override { return s_.firstSteps(rank, which_).back(); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    const std::vector<int>& first = s_.firstSteps(rank, which_);
    std::size_t i = std::size_t(std::upper_bound(first.begin(), first.end(), step) - first.begin()) - 1;
    const ParallelStepPlan& plan = s_.plan();
    const ProgramItem& item = s_.program(rank, which_)[i];
    switch (item.kind) {
    case Kind::Compute: out.push_back(Op{OpKind::Compute, 0, 0, 0, 0, item.duration}); break;
    case Kind::Collective: plan.collective(rank, item.collective)->appendOps(rank, step - first[i], out); break;
    case Kind::SendNext: out.push_back(Op{OpKind::Send, plan.neighbour(rank, 1), 0, item.bytes}); break;
    case Kind::SendPrevious: out.push_back(Op{OpKind::Send, plan.neighbour(rank, -1), 0, item.bytes}); break;
    case Kind::ReceiveNext: out.push_back(Op{OpKind::Recv, plan.neighbour(rank, 1), 0, item.bytes}); break;
    case Kind::ReceivePrevious: out.push_back(Op{OpKind::Recv, plan.neighbour(rank, -1), 0, item.bytes}); break;
    case Kind::RingShift:
      out.push_back(Op{OpKind::Send, plan.ring(rank, 1), 0, item.bytes});
      out.push_back(Op{OpKind::Recv, plan.ring(rank, -1), 0, item.bytes});
      break;
    case Kind::WaitBuckets:
      for (int b = 0; b < s_.bucketCount(); ++b) {
        const int stream = s_.bucketStream(b);
        out.push_back(Op{OpKind::Wait, stream, std::uint64_t(s_.stream(stream).stepCount(rank)), 0});
      }
      break;
    case Kind::WaitFor:
      if (item.waitItem >= 0)
        out.push_back(Op{OpKind::Wait, item.waitProgram,
                         std::uint64_t(s_.firstSteps(rank, item.waitProgram)[std::size_t(item.waitItem) + 1]), 0});
      break;
    }
  }

private:
  const ParallelStepSchedule& s_;
  int which_;
};

// The steps of stream `which` of a bucket's collective, its Waits
// renumbered to the step's streams: the collective's stream k is the
// bucket's stream k, which runs steps of its own before it (the first
// `from`: gate and copy in; the others one wait).
void appendCollectiveOps(const ParallelStepSchedule& s, int rank, int bucket, int from, const Schedule& collective,
                         int which, int step, std::vector<Op>& out) {
  const std::size_t first = out.size();
  collective.stream(which).appendOps(rank, step, out);
  for (std::size_t i = first; i < out.size(); ++i)
    if (out[i].kind == OpKind::Wait) {
      out[i].offset += std::uint64_t(out[i].peer == 0 ? from : 1);
      out[i].peer += s.bucketStream(bucket);
    }
}

Op waitSteps(int stream, int steps) { return Op{OpKind::Wait, stream, std::uint64_t(steps), 0}; }

// Bucket b's first stream: the gate (its gradients on stream 0, room in
// the pipeline of buckets), the copy in, the collective's first stream,
// the wait for its others, the copy back.
class BucketStream final : public Schedule {
public:
  BucketStream(const ParallelStepSchedule& s, int bucket) : s_(s), bucket_(bucket) {}
  int ranks() const override { return s_.ranks(); }
  int stepCount(int rank) const override { return s_.bucketSteps(rank, bucket_).total; }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    const StageProgram::Bucket& b = *s_.bucket(rank, bucket_);
    const ParallelStepSchedule::BucketSteps steps = s_.bucketSteps(rank, bucket_);
    const Schedule& collective = *s_.plan().collective(rank, b.collective);
    if (step == 0) {
      out.push_back(waitSteps(ParallelStepSchedule::kProgramStream, s_.firstSteps(rank)[std::size_t(b.readyAfterItem) + 1]));
      const int inFlight = std::max(1, s_.plan().bucketsInFlight);
      if (bucket_ >= inFlight) {
        const int previous = s_.bucketStream(bucket_ - inFlight);
        out.push_back(waitSteps(previous, s_.stream(previous).stepCount(rank)));
      }
    } else if (step < steps.collectiveFrom || step >= steps.collectiveTo) {
      out.push_back(Op{OpKind::Compute, 0, 0, 0, 0, b.copy});
    } else if (const int inner = step - steps.collectiveFrom; inner < collective.stream(0).stepCount(rank)) {
      appendCollectiveOps(s_, rank, bucket_, steps.collectiveFrom, collective, 0, inner, out);
    } else { // the collective's other streams
      for (int k = 1; k < collective.streamCount(); ++k) {
        const int stream = s_.bucketStream(bucket_) + k;
        out.push_back(waitSteps(stream, s_.stream(stream).stepCount(rank)));
      }
    }
  }

private:
  const ParallelStepSchedule& s_;
  int bucket_;
};

// Stream k > 0 of bucket b's collective: after the copy in.
class BucketSubStream final : public Schedule {
public:
  BucketSubStream(const ParallelStepSchedule& s, int bucket, int which) : s_(s), bucket_(bucket), which_(which) {}
  int ranks() const override { return s_.ranks(); }
  int stepCount(int rank) const override {
    const Schedule* c = collective(rank);
    return c ? 1 + c->stream(which_).stepCount(rank) : 0;
  }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    const int from = s_.bucketSteps(rank, bucket_).collectiveFrom;
    if (step == 0) return out.push_back(waitSteps(s_.bucketStream(bucket_), from));
    appendCollectiveOps(s_, rank, bucket_, from, *collective(rank), which_, step - 1, out);
  }

private:
  const Schedule* collective(int rank) const {
    const StageProgram::Bucket* b = s_.bucket(rank, bucket_);
    const Schedule* c = b ? s_.plan().collective(rank, b->collective) : nullptr;
    return c && c->streamCount() > which_ ? c : nullptr;
  }
  const ParallelStepSchedule& s_;
  int bucket_, which_;
};

} // namespace

ParallelStepSchedule::ParallelStepSchedule(ParallelStepPlan plan) : ParallelStepSchedule(std::move(plan), {}) {}

ParallelStepSchedule::ParallelStepSchedule(ParallelStepPlan plan, const std::vector<int>& ranks)
    : plan_(std::move(plan)) {
  for (int which = 0; which < kPrograms; ++which) streams_.push_back(std::make_unique<ProgramStream>(*this, which));
  // Each bucket as wide as its widest collective on the ranks walked.
  for (int i = 0, n = ranks.empty() ? plan_.ranks : int(ranks.size()); i < n; ++i) {
    const int r = ranks.empty() ? i : ranks[std::size_t(i)];
    const auto& buckets = plan_.stages[std::size_t(plan_.stageOf(r))].buckets;
    if (bucketWidth_.size() < buckets.size()) bucketWidth_.resize(buckets.size(), 1);
    for (std::size_t b = 0; b < buckets.size(); ++b)
      bucketWidth_[b] = std::max(bucketWidth_[b], plan_.collective(r, buckets[b].collective)->streamCount());
  }
  for (std::size_t b = 0; b < bucketWidth_.size(); ++b) {
    bucketFirst_.push_back(int(streams_.size()));
    streams_.push_back(std::make_unique<BucketStream>(*this, int(b)));
    for (int k = 1; k < bucketWidth_[b]; ++k) streams_.push_back(std::make_unique<BucketSubStream>(*this, int(b), k));
  }

  // Each rank's step numbering of its programs, shared by ranks of one
  // stage whose collectives take the same numbers of steps.
  for (int which = 0; which < kPrograms; ++which) {
    std::map<std::vector<int>, std::shared_ptr<const std::vector<int>>> shared;
    firstSteps_[which].resize(std::size_t(plan_.ranks));
    for (int i = 0, n = ranks.empty() ? plan_.ranks : int(ranks.size()); i < n; ++i) {
      const int r = ranks.empty() ? i : ranks[std::size_t(i)];
      const std::vector<ProgramItem>& items = program(r, which);
      std::vector<int> key{plan_.stageOf(r)};
      for (const ProgramItem& item : items)
        if (item.kind == Kind::Collective) key.push_back(plan_.collective(r, item.collective)->stepCount(r));
      auto& slot = shared[key];
      if (!slot) {
        std::vector<int> first{0};
        std::size_t next = 1;
        for (const ProgramItem& item : items)
          first.push_back(first.back() + (item.kind == Kind::Collective ? key[next++] : 1));
        slot = std::make_shared<const std::vector<int>>(std::move(first));
      }
      firstSteps_[which][std::size_t(r)] = slot;
    }
  }
}

ParallelStepSchedule::~ParallelStepSchedule() = default;

std::pair<int, int> ParallelStepSchedule::bucketOfStream(int stream) const {
  auto after = std::upper_bound(bucketFirst_.begin(), bucketFirst_.end(), stream);
  if (after == bucketFirst_.begin()) return {-1, -1};
  const int b = int(after - bucketFirst_.begin()) - 1;
  return {b, stream - bucketFirst_[std::size_t(b)]};
}

const StageProgram::Bucket* ParallelStepSchedule::bucket(int rank, int b) const {
  const auto& buckets = plan_.stages[std::size_t(plan_.stageOf(rank))].buckets;
  return std::size_t(b) < buckets.size() ? &buckets[std::size_t(b)] : nullptr;
}

ParallelStepSchedule::BucketSteps ParallelStepSchedule::bucketSteps(int rank, int b) const {
  BucketSteps steps;
  const StageProgram::Bucket* mine = bucket(rank, b);
  if (!mine) return steps;
  const Schedule& c = *plan_.collective(rank, mine->collective);
  const int copies = mine->copy > 0 ? 1 : 0;
  steps.collectiveFrom = 1 + copies;
  steps.collectiveTo = steps.collectiveFrom + c.stream(0).stepCount(rank) + (c.streamCount() > 1 ? 1 : 0);
  steps.total = steps.collectiveTo + copies;
  return steps;
}

std::size_t ParallelStepSchedule::itemIndex(int rank, int step, std::size_t from) const {
  const std::vector<int>& first = firstSteps(rank);
  if (first[from] > step) from = 0;
  while (first[from + 1] <= step) ++from;
  return from;
}

} // namespace collsim
