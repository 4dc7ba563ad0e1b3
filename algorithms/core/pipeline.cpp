#include "algorithms/core/pipeline.h"

#include <memory>
#include <stdexcept>

#include "algorithms/core/compose.h"
#include "algorithms/core/lazy.h"

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

// Steps of stream k on a rank through the end of its stage j, counting its
// own wait steps: through(rank)[k * stages + j]. Worked out slice by slice
// (each stream's waits depend on the one before), once per rank, when the
// executor first asks at one of the rank's wait steps.
class StepsThrough {
public:
  explicit StepsThrough(Table t) : t_(std::move(t)), perRank_(std::size_t(t_.front().front()->ranks())) {}
  int at(int k, int j, int rank) const {
    const int stages = int(t_.front().size());
    return perRank_.get(std::size_t(rank), [&](std::size_t) { return table(rank); })[std::size_t(k * stages + j)];
  }
  const Table& stages() const { return t_; }

private:
  std::vector<int> table(int rank) const {
    const int slices = int(t_.size()), stages = int(t_.front().size());
    std::vector<int> through(std::size_t(slices) * std::size_t(stages), 0);
    for (int k = 0; k < slices; ++k) {
      int n = 0;
      for (int j = 0; j < stages; ++j) {
        bool waits = k > 0 && through[std::size_t((k - 1) * stages + j)] > 0;
        n += (waits ? 1 : 0) + t_[k][j]->stepCount(rank);
        through[std::size_t(k * stages + j)] = n;
      }
    }
    return through;
  }

  Table t_;
  LazyValues<std::vector<int>> perRank_;
};

} // namespace

SchedulePtr pipeline(std::vector<std::vector<SchedulePtr>> stages) {
  if (stages.empty() || stages.front().empty()) throw std::invalid_argument("a pipeline needs slices and stages");
  Table table;
  for (auto& slice : stages) {
    if (slice.size() != stages.front().size()) throw std::invalid_argument("every slice needs the same stages");
    table.emplace_back();
    for (auto& stage : slice) table.back().push_back(std::shared_ptr<const Schedule>(std::move(stage)));
  }
  const int ranks = table.front().front()->ranks();
  auto through = std::make_shared<const StepsThrough>(std::move(table));
  std::vector<SchedulePtr> streams;
  for (int k = 0; k < int(through->stages().size()); ++k) {
    std::vector<SchedulePtr> parts;
    std::vector<SequenceSchedule::PartTag> tags; // stage j of slice k, its wait included
    for (int j = 0; j < int(through->stages()[k].size()); ++j) {
      if (k > 0) {
        parts.push_back(std::make_unique<WaitStep>(ranks, k - 1, [through, k, j](int rank) { return through->at(k - 1, j, rank); }));
        tags.push_back({j, k});
      }
      parts.push_back(std::make_unique<Shared>(through->stages()[k][j]));
      tags.push_back({j, k});
    }
    streams.push_back(std::make_unique<SequenceSchedule>(std::move(parts), std::move(tags)));
  }
  // One slice is one stream (a stream of streams would not run as a stream).
  if (streams.size() == 1) return std::move(streams.front());
  return std::make_unique<StreamsSchedule>(std::move(streams));
}

} // namespace collsim
