#include "algorithms/core/compose.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim {

SequenceSchedule::SequenceSchedule(std::vector<SchedulePtr> parts, std::vector<PartTag> tags)
    : parts_(std::move(parts)), tags_(std::move(tags)), uniformSteps_(std::size_t(parts_.empty() ? 0 : parts_.front()->ranks())) {
  if (parts_.empty()) throw std::invalid_argument("a sequence needs at least one schedule");
  if (tags_.empty())
    for (std::size_t i = 0; i < parts_.size(); ++i) tags_.push_back({int(i), -1});
  if (tags_.size() != parts_.size()) throw std::invalid_argument("a sequence needs a tag per part");
  for (const auto& t : tags_) phases_ = std::max(phases_, t.phase + 1);
  for (const auto& p : parts_)
    if (p->ranks() != parts_.front()->ranks() || p->streamCount() != 1)
      throw std::invalid_argument("sequenced schedules must be single-stream with the same rank count");
}

int SequenceSchedule::uniformSteps(int rank) const {
  return uniformSteps_.get(std::size_t(rank), [&](std::size_t) {
    int n = parts_.front()->stepCount(rank);
    for (const auto& p : parts_)
      if (p->stepCount(rank) != n) return -1;
    return n;
  });
}

int SequenceSchedule::stepCount(int rank) const {
  if (int n = uniformSteps(rank); n >= 0) return n * int(parts_.size());
  int n = 0;
  for (const auto& p : parts_) n += p->stepCount(rank);
  return n;
}

void SequenceSchedule::appendOps(int rank, int step, std::vector<Op>& out) const {
  if (int n = uniformSteps(rank); n > 0) return parts_[std::size_t(step / n)]->appendOps(rank, step % n, out);
  auto [part, inner] = partOf(rank, step);
  if (part < parts_.size()) parts_[part]->appendOps(rank, inner, out);
}

std::pair<std::size_t, int> SequenceSchedule::partOf(int rank, int step) const {
  if (int n = uniformSteps(rank); n > 0) return {std::size_t(step / n), step % n};
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

DisjointSchedule::DisjointSchedule(int ranks, std::size_t parts, PartOf partOf, BuildPart build)
    : ranks_(ranks), parts_(parts), partOf_(std::move(partOf)), build_(std::move(build)), built_(parts) {
  if (parts == 0) throw std::invalid_argument("a disjoint union needs at least one part");
}

const Schedule* DisjointSchedule::part(int rank) const {
  const int i = partOf_(rank);
  if (i < 0) return nullptr;
  if (std::size_t(i) >= parts_) throw std::logic_error("rank " + std::to_string(rank) + "'s part is out of range");
  return built_.get(std::size_t(i), [&](std::size_t) {
    SchedulePtr p = build_(std::size_t(i));
    if (p->ranks() != ranks_ || p->streamCount() != 1)
      throw std::logic_error("disjoint parts must be single-stream schedules of the same rank count");
    return p;
  }).get();
}

} // namespace collsim
