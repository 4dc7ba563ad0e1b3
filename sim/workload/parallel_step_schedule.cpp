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
    case Kind::WaitBuckets: {
      const auto& buckets = plan.stages[std::size_t(plan.stageOf(rank))].buckets;
      for (std::size_t b = 0; b < buckets.size(); ++b) {
        int stream = ParallelStepSchedule::kFirstBucketStream + int(b);
        out.push_back(Op{OpKind::Wait, stream, std::uint64_t(s_.stream(stream).stepCount(rank)), 0});
      }
      break;
    }
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

// Bucket b: wait for its gradients on stream 0, then its collective.
class BucketStream final : public Schedule {
public:
  BucketStream(const ParallelStepSchedule& s, std::size_t bucket) : s_(s), bucket_(bucket) {}
  int ranks() const override { return s_.ranks(); }
  int stepCount(int rank) const override {
    const StageProgram::Bucket* b = bucketOf(rank);
    return b ? 1 + s_.plan().collective(rank, b->collective)->stepCount(rank) : 0;
  }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    const StageProgram::Bucket* b = bucketOf(rank);
    if (step == 0) {
      int ready = s_.firstSteps(rank)[std::size_t(b->readyAfterItem) + 1];
      out.push_back(Op{OpKind::Wait, ParallelStepSchedule::kProgramStream, std::uint64_t(ready), 0});
      std::size_t inFlight = std::size_t(std::max(1, s_.plan().bucketsInFlight));
      if (bucket_ >= inFlight) {
        int previous = int(bucket_ - inFlight) + ParallelStepSchedule::kFirstBucketStream;
        out.push_back(Op{OpKind::Wait, previous, std::uint64_t(s_.stream(previous).stepCount(rank)), 0});
      }
    } else {
      s_.plan().collective(rank, b->collective)->appendOps(rank, step - 1, out);
    }
  }

private:
  const StageProgram::Bucket* bucketOf(int rank) const {
    const auto& buckets = s_.plan().stages[std::size_t(s_.stageOf(rank))].buckets;
    return bucket_ < buckets.size() ? &buckets[bucket_] : nullptr;
  }
  const ParallelStepSchedule& s_;
  std::size_t bucket_;
};

} // namespace

ParallelStepSchedule::ParallelStepSchedule(ParallelStepPlan plan) : ParallelStepSchedule(std::move(plan), {}) {}

ParallelStepSchedule::ParallelStepSchedule(ParallelStepPlan plan, const std::vector<int>& ranks)
    : plan_(std::move(plan)) {
  std::size_t buckets = 0;
  for (const StageProgram& p : plan_.stages) buckets = std::max(buckets, p.buckets.size());
  for (int which = 0; which < kPrograms; ++which) streams_.push_back(std::make_unique<ProgramStream>(*this, which));
  for (std::size_t b = 0; b < buckets; ++b) streams_.push_back(std::make_unique<BucketStream>(*this, b));

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

std::size_t ParallelStepSchedule::itemIndex(int rank, int step, std::size_t from) const {
  const std::vector<int>& first = firstSteps(rank);
  if (first[from] > step) from = 0;
  while (first[from + 1] <= step) ++from;
  return from;
}

} // namespace collsim
