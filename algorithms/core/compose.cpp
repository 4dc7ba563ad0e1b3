#include "algorithms/core/compose.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim {

SequenceSchedule::SequenceSchedule(std::vector<SchedulePtr> parts, std::vector<PartTag> tags)
    : parts_(std::move(parts)), tags_(std::move(tags)) {
  if (parts_.empty()) throw std::invalid_argument("a sequence needs at least one schedule");
  if (tags_.empty())
    for (std::size_t i = 0; i < parts_.size(); ++i) tags_.push_back({int(i), -1});
  if (tags_.size() != parts_.size()) throw std::invalid_argument("a sequence needs a tag per part");
  for (const auto& t : tags_) phases_ = std::max(phases_, t.phase + 1);
  for (const auto& p : parts_)
    if (p->ranks() != parts_.front()->ranks() || p->streamCount() != 1)
      throw std::invalid_argument("sequenced schedules must be single-stream with the same rank count");
  for (int r = 0; r < ranks(); ++r) {
    int n = parts_.front()->stepCount(r);
    for (const auto& p : parts_)
      if (p->stepCount(r) != n) n = -1;
    uniformSteps_.push_back(n);
  }
}

int SequenceSchedule::stepCount(int rank) const {
  if (uniformSteps_[rank] >= 0) return uniformSteps_[rank] * int(parts_.size());
  int n = 0;
  for (const auto& p : parts_) n += p->stepCount(rank);
  return n;
}

void SequenceSchedule::appendOps(int rank, int step, std::vector<Op>& out) const {
  if (int n = uniformSteps_[rank]; n > 0) return parts_[std::size_t(step / n)]->appendOps(rank, step % n, out);
  auto [part, inner] = partOf(rank, step);
  if (part < parts_.size()) parts_[part]->appendOps(rank, inner, out);
}

std::pair<std::size_t, int> SequenceSchedule::partOf(int rank, int step) const {
  if (int n = uniformSteps_[rank]; n > 0) return {std::size_t(step / n), step % n};
  std::size_t part = 0;
  for (; part < parts_.size(); ++part) {
    int n = parts_[part]->stepCount(rank);
    if (step < n) break;
    step -= n;
  }
  return {part, step};
}

// The outer structure names the phase (a hierarchical algorithm's levels,
// not the ring inside one) and the chunk.
StepPlace SequenceSchedule::place(int rank, int step) const {
  auto [part, inner] = partOf(rank, step);
  if (part >= parts_.size()) return {};
  StepPlace p = parts_[part]->place(rank, inner);
  if (tags_[part].phase >= 0) p.phase = tags_[part].phase, p.phases = phases_;
  if (tags_[part].chunk >= 0) p.chunk = tags_[part].chunk;
  return p;
}

SchedulePtr sequence(SchedulePtr first, SchedulePtr second) {
  std::vector<SchedulePtr> parts;
  parts.push_back(std::move(first));
  parts.push_back(std::move(second));
  return std::make_unique<SequenceSchedule>(std::move(parts));
}

StreamsSchedule::StreamsSchedule(std::vector<SchedulePtr> parts) : parts_(std::move(parts)) {
  if (parts_.empty()) throw std::invalid_argument("a streams schedule needs at least one part");
  for (const auto& p : parts_)
    if (p->ranks() != parts_.front()->ranks() || p->streamCount() != 1)
      throw std::invalid_argument("streams must be single-stream schedules of the same rank count");
}

DisjointSchedule::DisjointSchedule(std::vector<SchedulePtr> parts, const std::vector<std::vector<int>>& members)
    : parts_(std::move(parts)), ranks_(parts_.empty() ? 0 : parts_.front()->ranks()) {
  if (parts_.empty()) throw std::invalid_argument("a disjoint union needs at least one part");
  if (members.size() != parts_.size()) throw std::invalid_argument("a disjoint union needs each part's members");
  partOf_.assign(std::size_t(ranks_), -1);
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    if (parts_[i]->ranks() != ranks_ || parts_[i]->streamCount() != 1)
      throw std::invalid_argument("disjoint parts must be single-stream schedules of the same rank count");
    for (int r : members[i]) {
      if (partOf_[std::size_t(r)] >= 0) throw std::invalid_argument("rank " + std::to_string(r) + " is in two disjoint parts");
      partOf_[std::size_t(r)] = int(i);
    }
  }
}

} // namespace collsim
