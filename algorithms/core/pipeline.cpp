#include "algorithms/core/pipeline.h"

#include <memory>
#include <stdexcept>

#include "algorithms/core/compose.h"

namespace collsim {
namespace {

using Table = std::vector<std::vector<std::shared_ptr<const Schedule>>>;

// A schedule shared between the stream it runs in and the step counts the
// next stream waits for.
class Shared final : public Schedule {
public:
  explicit Shared(std::shared_ptr<const Schedule> s) : s_(std::move(s)) {}
  int ranks() const override { return s_->ranks(); }
  int stepCount(int rank) const override { return s_->stepCount(rank); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override { s_->appendOps(rank, step, out); }
  StepPlace place(int rank, int step) const override { return s_->place(rank, step); }

private:
  std::shared_ptr<const Schedule> s_;
};

// Steps of stream k on each rank through the end of its stage j, counting
// its own wait steps: through[(k * stages + j) * ranks + rank]. Worked out
// once, slice by slice (each stream's waits depend on the one before): the
// executor asks for it at every wait step.
std::vector<int> stepsThrough(const Table& t, int ranks) {
  const int slices = int(t.size()), stages = int(t.front().size());
  std::vector<int> through(std::size_t(slices) * std::size_t(stages) * std::size_t(ranks), 0);
  auto at = [&](int k, int j, int rank) -> int& { return through[(std::size_t(k) * stages + j) * ranks + rank]; };
  for (int k = 0; k < slices; ++k)
    for (int rank = 0; rank < ranks; ++rank) {
      int n = 0;
      for (int j = 0; j < stages; ++j) {
        bool waits = k > 0 && at(k - 1, j, rank) > 0;
        n += (waits ? 1 : 0) + t[k][j]->stepCount(rank);
        at(k, j, rank) = n;
      }
    }
  return through;
}

} // namespace

SchedulePtr pipeline(std::vector<std::vector<SchedulePtr>> stages) {
  if (stages.empty() || stages.front().empty()) throw std::invalid_argument("a pipeline needs slices and stages");
  auto table = std::make_shared<Table>();
  for (auto& slice : stages) {
    if (slice.size() != stages.front().size()) throw std::invalid_argument("every slice needs the same stages");
    table->emplace_back();
    for (auto& stage : slice) table->back().push_back(std::shared_ptr<const Schedule>(std::move(stage)));
  }
  const int ranks = table->front().front()->ranks(), count = int((*table)[0].size());
  auto through = std::make_shared<const std::vector<int>>(stepsThrough(*table, ranks));
  std::vector<SchedulePtr> streams;
  for (int k = 0; k < int(table->size()); ++k) {
    std::vector<SchedulePtr> parts;
    std::vector<SequenceSchedule::PartTag> tags; // stage j of slice k, its wait included
    for (int j = 0; j < int((*table)[k].size()); ++j) {
      if (k > 0) {
        parts.push_back(std::make_unique<WaitStep>(ranks, k - 1, [through, k, j, count, ranks](int rank) {
          return (*through)[(std::size_t(k - 1) * count + j) * ranks + rank];
        }));
        tags.push_back({j, k});
      }
      parts.push_back(std::make_unique<Shared>((*table)[k][j]));
      tags.push_back({j, k});
    }
    streams.push_back(std::make_unique<SequenceSchedule>(std::move(parts), std::move(tags)));
  }
  // One slice is one stream (a stream of streams would not run as a stream).
  if (streams.size() == 1) return std::move(streams.front());
  return std::make_unique<StreamsSchedule>(std::move(streams));
}

} // namespace collsim
