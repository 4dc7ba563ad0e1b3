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

private:
  std::shared_ptr<const Schedule> s_;
};

// Steps of stream k on `rank` through the end of its stage j, counting its
// own wait steps.
int through(const Table& t, int k, int j, int rank);

int waitSteps(const Table& t, int k, int j, int rank) { return k > 0 && through(t, k - 1, j, rank) > 0 ? 1 : 0; }

int through(const Table& t, int k, int j, int rank) {
  int n = 0;
  for (int i = 0; i <= j; ++i) n += waitSteps(t, k, i, rank) + t[k][i]->stepCount(rank);
  return n;
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
  const int ranks = table->front().front()->ranks();
  std::vector<SchedulePtr> streams;
  for (int k = 0; k < int(table->size()); ++k) {
    std::vector<SchedulePtr> parts;
    for (int j = 0; j < int((*table)[k].size()); ++j) {
      if (k > 0)
        parts.push_back(std::make_unique<WaitStep>(ranks, k - 1, [table, k, j](int rank) { return through(*table, k - 1, j, rank); }));
      parts.push_back(std::make_unique<Shared>((*table)[k][j]));
    }
    streams.push_back(std::make_unique<SequenceSchedule>(std::move(parts)));
  }
  return std::make_unique<StreamsSchedule>(std::move(streams));
}

} // namespace collsim
