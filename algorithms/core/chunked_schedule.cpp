#include "algorithms/core/chunked_schedule.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "algorithms/core/compose.h"

namespace collsim {

CollectiveSpec ChunkedSchedule::oneElementPerChunk() const {
  CollectiveSpec spec;
  spec.op = op;
  spec.ranks = ranks;
  spec.count = std::uint64_t(chunks);
  spec.elemSize = 1;
  spec.root = root;
  return spec;
}

namespace {

// Chunk c of the view: sub-block c % k of rank block c / k (k chunks a rank).
Block chunkBlock(const GroupView& g, std::uint64_t perRank, std::uint64_t c) {
  Block rankBlock = g.block(int(c / perRank));
  Block inside = blockOf(rankBlock.count, int(perRank), int(c % perRank));
  return {rankBlock.first + inside.first, inside.count};
}

// One stream of a chunked schedule on a view.
class ChunkStream final : public Schedule {
public:
  ChunkStream(std::shared_ptr<const ChunkedSchedule> s, int stream, GroupView g)
      : s_(std::move(s)), steps_(s_->streams[std::size_t(stream)]), g_(std::move(g)) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override {
    int i = g_.local(rank);
    return i < 0 ? 0 : int(steps_[std::size_t(i)].size());
  }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    for (const Op& op : steps_[std::size_t(g_.local(rank))][std::size_t(step)]) {
      if (op.kind == OpKind::Wait) out.push_back(op);
      else g_.emit(out, op.kind, op.peer, chunkRange(g_, s_->chunks, op.offset, op.bytes));
    }
  }

private:
  std::shared_ptr<const ChunkedSchedule> s_;
  const MaterializedSchedule& steps_;
  GroupView g_;
};

} // namespace

Block chunkRange(const GroupView& g, int chunks, std::uint64_t first, std::uint64_t n) {
  const std::uint64_t perRank = std::uint64_t(chunks / g.size());
  if (first >= std::uint64_t(chunks)) return {g.count(), 0};
  Block a = chunkBlock(g, perRank, first);
  if (n == 0) return {a.first, 0};
  Block b = chunkBlock(g, perRank, first + n - 1);
  return {a.first, b.first + b.count - a.first};
}

SchedulePtr scheduleOfChunks(std::shared_ptr<const ChunkedSchedule> s, const GroupView& g) {
  if (g.size() != s->ranks) throw std::invalid_argument("a chunked schedule runs on its own number of ranks");
  if (s->streams.size() == 1) return std::make_unique<ChunkStream>(s, 0, g);
  std::vector<SchedulePtr> parts;
  for (std::size_t k = 0; k < s->streams.size(); ++k) parts.push_back(std::make_unique<ChunkStream>(s, int(k), g));
  return std::make_unique<StreamsSchedule>(std::move(parts));
}

ChunkedSchedule chunksOf(const AlgorithmEntry& entry, CollectiveSpec spec, int chunks) {
  if (spec.op == Collective::AllToAll)
    throw std::invalid_argument("alltoall is not written as chunks (its buffer is an input and an output)");
  if (chunks < spec.ranks || chunks % spec.ranks != 0)
    throw std::invalid_argument("the chunks (" + std::to_string(chunks) + ") must be a multiple of the ranks (" +
                                std::to_string(spec.ranks) + ")");
  ChunkedSchedule out;
  out.name = entry.name;
  out.op = spec.op;
  out.ranks = spec.ranks;
  out.chunks = chunks;
  out.root = spec.root;
  spec.count = std::uint64_t(chunks);
  spec.elemSize = 1;
  spec.chunkBytes = 0;
  if (std::string why = entry.unsupported(spec); !why.empty()) throw std::invalid_argument(why);
  SchedulePtr built = buildSchedule(entry, spec);
  for (int k = 0; k < built->streamCount(); ++k) {
    out.streams.push_back(materialize(built->stream(k)));
    for (const auto& steps : out.streams.back())
      for (const auto& ops : steps)
        for (const Op& op : ops) {
          if (op.kind == OpKind::Copy || op.kind == OpKind::Compute)
            throw std::invalid_argument(entry.name + " copies within a rank, which a schedule file does not hold");
          if (op.net != InNetwork::None)
            throw std::invalid_argument(entry.name + " reduces in the network, which a schedule file does not hold");
        }
  }
  return out;
}

AlgorithmEntry chunkedEntry(std::shared_ptr<const ChunkedSchedule> s, const std::string& name) {
  // The busiest rank's steps and chunks, summed over its streams.
  int steps = 0;
  std::uint64_t sent = 0, reduced = 0;
  for (int r = 0; r < s->ranks; ++r) {
    int rankSteps = 0;
    std::uint64_t rankSent = 0, rankReduced = 0;
    for (const auto& stream : s->streams) {
      rankSteps = std::max(rankSteps, int(stream[std::size_t(r)].size()));
      for (const auto& ops : stream[std::size_t(r)])
        for (const Op& op : ops) {
          if (op.kind == OpKind::Send) rankSent += op.bytes;
          if (op.kind == OpKind::RecvReduce) rankReduced += op.bytes;
        }
    }
    steps = std::max(steps, rankSteps);
    sent = std::max(sent, rankSent);
    reduced = std::max(reduced, rankReduced);
  }
  const double sentShare = double(sent) / s->chunks, reducedShare = double(reduced) / s->chunks;
  auto share = [](double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", x);
    return std::string(text);
  };
  AlgorithmEntry e;
  e.op = s->op;
  e.name = name;
  e.summary = "a schedule file" + (s->name.empty() ? std::string() : " (" + s->name + ")") + ": " +
              std::to_string(s->ranks) + " ranks, " + std::to_string(s->chunks) + " chunks";
  e.formula = std::to_string(steps) + " a + " + share(sentShare) + " n b + " + share(reducedShare) + " n g";
  e.build = [s](const GroupView& g, const CollectiveSpec&) { return scheduleOfChunks(s, g); };
  e.cost = [steps, sentShare, reducedShare](int, double n, const CostModel& m) {
    return steps * m.alpha + sentShare * n * m.beta + reducedShare * n * m.gamma;
  };
  e.unsupported = [s](const CollectiveSpec& spec) -> std::string {
    if (spec.ranks != s->ranks)
      return "the schedule is written for " + std::to_string(s->ranks) + " ranks, not " + std::to_string(spec.ranks);
    if ((spec.op == Collective::Broadcast || spec.op == Collective::Reduce) && spec.root != s->root)
      return "the schedule's root is rank " + std::to_string(s->root) + ", not " + std::to_string(spec.root);
    return {};
  };
  return e;
}

} // namespace collsim
