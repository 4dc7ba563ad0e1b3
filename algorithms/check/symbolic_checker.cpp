#include "algorithms/check/symbolic_checker.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace collsim {
namespace {

constexpr std::size_t kMaxProblems = 12;
constexpr std::uint64_t kNoData = std::numeric_limits<std::uint64_t>::max();

// Per element: a contributor set (`words` 64-bit words) and the index of the
// input element it holds (kNoData when it holds nothing meaningful); with
// several streams also the last write (stream, step), for the race check.
struct Cells {
  std::size_t words = 1;
  std::vector<std::uint64_t> sets;
  std::vector<std::uint64_t> source;
  std::vector<std::uint32_t> writerStream, writerStep;
  std::uint64_t* set(std::uint64_t e) { return sets.data() + e * words; }
};

constexpr std::uint32_t kNoWriter = ~std::uint32_t(0);

struct Message {
  std::uint64_t elems;
  std::vector<std::uint64_t> sets;
  std::vector<std::uint64_t> source;
};

class Checker {
public:
  Checker(const Schedule& s, const CollectiveSpec& spec)
      : s_(s), spec_(spec), p_(spec.ranks), words_(std::size_t((spec.ranks + 63) / 64)) {}

  CheckReport run() {
    if (s_.ranks() != p_) {
      fail("schedule has " + std::to_string(s_.ranks()) + " ranks, the collective " + std::to_string(p_));
      return std::move(report_);
    }
    initBuffers();
    if (!validateOps()) return std::move(report_);
    execute();
    if (report_.ok()) checkFinalState();
    return std::move(report_);
  }

private:
  void fail(const std::string& why) {
    if (report_.problems.size() < kMaxProblems) report_.problems.push_back(why);
  }

  static std::string where(int rank, int step) {
    return "rank " + std::to_string(rank) + " step " + std::to_string(step);
  }

  // AllToAll exchanges blocks of count / p elements; others use blockOf.
  Block block(int i) const {
    if (spec_.op != Collective::AllToAll) return blockOf(spec_.count, p_, i);
    std::uint64_t b = spec_.count / std::uint64_t(p_);
    return {std::uint64_t(i) * b, b};
  }

  void own(int r, std::uint64_t e) {
    buffers_[r].set(e)[r / 64] |= 1ULL << (r % 64);
    buffers_[r].source[e] = e;
  }

  void initBuffers() {
    const std::uint64_t n = spec_.bufferElems();
    buffers_.assign(std::size_t(p_), Cells{words_, std::vector<std::uint64_t>(n * words_, 0),
                                           std::vector<std::uint64_t>(n, kNoData), {}, {}});
    if (s_.streamCount() > 1)
      for (auto& c : buffers_) c.writerStream.assign(n, kNoWriter), c.writerStep.assign(n, 0);
    for (int r = 0; r < p_; ++r) {
      switch (spec_.op) {
      case Collective::AllReduce:
      case Collective::ReduceScatter:
      case Collective::Reduce:
        for (std::uint64_t e = 0; e < spec_.count; ++e) own(r, e);
        break;
      case Collective::AllGather:
        for (std::uint64_t e = block(r).first; e < block(r).first + block(r).count; ++e) own(r, e);
        break;
      case Collective::Broadcast:
        if (r == spec_.root)
          for (std::uint64_t e = 0; e < spec_.count; ++e) own(r, e);
        break;
      case Collective::AllToAll:
        for (std::uint64_t e = 0; e < std::uint64_t(p_) * block(0).count; ++e) own(r, e);
        break;
      }
    }
  }

  static bool writes(const Op& op) {
    return op.kind != OpKind::Send && op.kind != OpKind::Wait && op.kind != OpKind::Compute;
  }

  // Peers, alignment, bounds and in-step overlaps, for every operation.
  bool validateOps() {
    for (int st = 0; st < s_.streamCount(); ++st) validateOps(s_.stream(st), st);
    return report_.ok();
  }
  void validateOps(const Schedule& sched, int stream) {
    std::vector<Op> ops;
    const std::uint64_t size = spec_.bufferBytes();
    for (int r = 0; r < p_; ++r) {
      for (int k = 0; k < sched.stepCount(r); ++k) {
        ops.clear();
        sched.appendOps(r, k, ops);
        for (const Op& op : ops) {
          if (op.kind == OpKind::Compute) {
            if (op.durationPs < 0) fail(where(r, k) + ": computes for a negative time");
            continue;
          }
          if (op.kind == OpKind::Wait) {
            if (op.peer < 0 || op.peer >= s_.streamCount() || op.peer == stream)
              fail(where(r, k) + ": waits for stream " + std::to_string(op.peer) + ", not another stream");
            else if (op.offset > std::uint64_t(s_.stream(op.peer).stepCount(r)))
              fail(where(r, k) + ": waits for step " + std::to_string(op.offset) + " of stream " +
                   std::to_string(op.peer) + ", which has fewer");
            continue;
          }
          bool local = op.kind == OpKind::Copy;
          if (!local && (op.peer < 0 || op.peer >= p_ || op.peer == r))
            fail(where(r, k) + ": peer " + std::to_string(op.peer) + " is not another rank");
          else if (op.offset % spec_.elemSize || op.bytes % spec_.elemSize || op.srcOffset % spec_.elemSize)
            fail(where(r, k) + ": range is not aligned to " + std::to_string(spec_.elemSize) + "-byte elements");
          else if (op.offset + op.bytes > size || (local && op.srcOffset + op.bytes > size))
            fail(where(r, k) + ": range of " + std::to_string(op.bytes) + " bytes at " +
                 std::to_string(local ? std::max(op.offset, op.srcOffset) : op.offset) + " is outside the " +
                 std::to_string(size) + "-byte buffer");
        }
        checkWritesApart(ops, r, k);
      }
    }
  }

  // No two operations of a step write the same bytes, except reductions
  // into them (they add up in any order). A sweep by offset, not every pair:
  // a mesh step holds hundreds of operations.
  void checkWritesApart(const std::vector<Op>& ops, int r, int k) {
    std::vector<std::size_t> writers;
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (writes(ops[i]) && ops[i].bytes) writers.push_back(i);
    std::sort(writers.begin(), writers.end(), [&](std::size_t a, std::size_t b) { return ops[a].offset < ops[b].offset; });
    // The writer reaching furthest so far, among reductions and among the rest.
    std::optional<std::size_t> reduceReach, plainReach;
    auto end = [&](std::size_t i) { return ops[i].offset + ops[i].bytes; };
    auto clash = [&](const std::optional<std::size_t>& earlier, std::size_t i) {
      if (!earlier || end(*earlier) <= ops[i].offset) return;
      fail(where(r, k) + ": operations " + std::to_string(std::min(*earlier, i)) + " and " +
           std::to_string(std::max(*earlier, i)) + " write the same bytes");
    };
    for (std::size_t i : writers) {
      bool reduce = ops[i].kind == OpKind::RecvReduce;
      clash(plainReach, i);
      if (!reduce) clash(reduceReach, i);
      auto& reach = reduce ? reduceReach : plainReach;
      if (!reach || end(i) > end(*reach)) reach = i;
    }
  }

  // Messages in flight from src to dst within the current stream.
  std::deque<Message>& channel(int src, int dst) {
    return inFlight_[(std::uint64_t(stream_) * std::uint64_t(p_) + std::uint64_t(src)) * std::uint64_t(p_) +
                     std::uint64_t(dst)];
  }

  Message snapshot(int r, std::uint64_t offset, std::uint64_t bytes) {
    Message m{bytes / spec_.elemSize, {}, {}};
    std::uint64_t first = offset / spec_.elemSize;
    auto* sets = buffers_[r].set(first);
    m.sets.assign(sets, sets + m.elems * words_);
    auto src = buffers_[r].source.begin() + std::ptrdiff_t(first);
    m.source.assign(src, src + std::ptrdiff_t(m.elems));
    return m;
  }

  // Sends and copies read their bytes when the step is posted.
  void post(int r, const std::vector<Op>& ops, std::vector<Message>& copies) {
    copies.clear();
    for (const Op& op : ops) {
      if (op.kind == OpKind::Send) channel(r, op.peer).push_back(snapshot(r, op.offset, op.bytes));
      else if (op.kind == OpKind::Copy) copies.push_back(snapshot(r, op.srcOffset, op.bytes));
    }
  }

  // True when every receive of the step has its message waiting and every
  // stream it waits for has got far enough.
  bool receivesReady(int r, const std::vector<Op>& ops) {
    std::map<int, std::size_t> needed;
    for (const Op& op : ops) {
      if (op.kind == OpKind::Recv || op.kind == OpKind::RecvReduce) ++needed[op.peer];
      if (op.kind == OpKind::Wait && std::uint64_t(laneStep_[std::size_t(op.peer) * std::size_t(p_) + std::size_t(r)]) < op.offset)
        return false;
    }
    for (auto [peer, n] : needed)
      if (channel(peer, r).size() < n) return false;
    return true;
  }

  // With several streams, a write must come after the last write of the
  // same element by another stream: that stream's step must be among those
  // this step's lane has waited for (directly or through other waits).
  bool ordered(int r, int k, std::uint64_t e) {
    Cells& cells = buffers_[r];
    std::uint32_t other = cells.writerStream[e];
    if (other != kNoWriter && other != std::uint32_t(stream_) && clock_[other] <= cells.writerStep[e]) {
      fail(where(r, k) + " (stream " + std::to_string(stream_) + "): writes element " + std::to_string(e) +
           ", which step " + std::to_string(cells.writerStep[e]) + " of stream " + std::to_string(other) +
           " also writes, with no wait between them (a race)");
      return false;
    }
    cells.writerStream[e] = std::uint32_t(stream_);
    cells.writerStep[e] = std::uint32_t(k);
    return true;
  }

  void write(int r, int k, const Op& op, const Message& m) {
    Cells& cells = buffers_[r];
    std::uint64_t first = op.offset / spec_.elemSize;
    for (std::uint64_t i = 0; i < m.elems; ++i) {
      std::uint64_t e = first + i;
      if (!clock_.empty() && !ordered(r, k, e)) return;
      std::uint64_t* dst = cells.set(e);
      const std::uint64_t* in = m.sets.data() + i * words_;
      if (op.kind != OpKind::RecvReduce) {
        std::copy(in, in + words_, dst);
        cells.source[e] = m.source[i];
        continue;
      }
      if (cells.source[e] == kNoData || m.source[i] == kNoData) {
        fail(where(r, k) + ": element " + std::to_string(e) + " is reduced while one side holds no data");
        return;
      }
      if (cells.source[e] != m.source[i]) {
        fail(where(r, k) + ": element " + std::to_string(e) + " (input element " + std::to_string(cells.source[e]) +
             ") is reduced with input element " + std::to_string(m.source[i]) + " from rank " +
             std::to_string(op.peer));
        return;
      }
      for (std::size_t w = 0; w < words_; ++w) {
        if (dst[w] & in[w]) {
          fail(where(r, k) + ": element " + std::to_string(e) + " from rank " + std::to_string(op.peer) +
               " is reduced twice (a contribution counted twice)");
          return;
        }
        dst[w] |= in[w];
      }
    }
  }

  // Lane (stream_, r)'s clock for step k: per stream, how many of its steps
  // on rank r come before this one (its own earlier steps, and what its
  // waits, and theirs, waited for).
  void tick(int r, int k, const std::vector<Op>& ops) {
    const std::size_t streams = std::size_t(s_.streamCount());
    auto lane = [&](std::size_t st) { return st * std::size_t(p_) + std::size_t(r); };
    std::vector<std::vector<std::uint32_t>>& mine = history_[lane(std::size_t(stream_))];
    if (mine.empty()) mine.emplace_back(streams, 0);
    clock_ = mine.back();
    clock_[std::size_t(stream_)] = std::uint32_t(k);
    for (const Op& op : ops)
      if (op.kind == OpKind::Wait) {
        const auto& theirs = history_[lane(std::size_t(op.peer))];
        if (op.offset == 0 || theirs.empty()) continue;
        const auto& after = theirs[std::min<std::size_t>(op.offset, theirs.size() - 1)];
        for (std::size_t st = 0; st < streams; ++st) clock_[st] = std::max(clock_[st], after[st]);
      }
  }
  // After step k: the clock with the step itself counted, for later waits on it.
  void tock(int r, int k) {
    clock_[std::size_t(stream_)] = std::uint32_t(k + 1);
    history_[std::size_t(stream_) * std::size_t(p_) + std::size_t(r)].push_back(clock_);
  }

  void complete(int r, int k, const std::vector<Op>& ops, const std::vector<Message>& copies) {
    if (s_.streamCount() > 1) tick(r, k, ops);
    std::size_t copyIndex = 0;
    for (const Op& op : ops) {
      if (op.kind == OpKind::Send || op.kind == OpKind::Wait || op.kind == OpKind::Compute) continue;
      if (op.kind == OpKind::Copy) {
        write(r, k, op, copies[copyIndex++]);
        continue;
      }
      auto& q = channel(op.peer, r);
      Message m = std::move(q.front());
      q.pop_front();
      if (m.elems * spec_.elemSize != op.bytes) {
        fail(where(r, k) + ": receives " + std::to_string(op.bytes) + " bytes from rank " + std::to_string(op.peer) +
             " whose matching send has " + std::to_string(m.elems * spec_.elemSize));
        continue;
      }
      write(r, k, op, m);
    }
    if (s_.streamCount() > 1) tock(r, k);
  }

  // Runs every (stream, rank) lane as far as its messages allow, until
  // nothing moves; lanes of one rank share its buffer.
  void execute() {
    const int streams = s_.streamCount();
    const std::size_t lanes = std::size_t(streams) * std::size_t(p_);
    laneStep_.assign(lanes, 0);
    history_.assign(streams > 1 ? lanes : 0, {});
    std::vector<int>& step = laneStep_;
    std::vector<bool> posted(lanes, false);
    std::vector<std::vector<Message>> copies(lanes);
    std::vector<Op> ops;
    bool progress = true;
    while (progress && report_.problems.size() < kMaxProblems) {
      progress = false;
      for (stream_ = 0; stream_ < streams; ++stream_) {
        const Schedule& sched = s_.stream(stream_);
        for (int r = 0; r < p_; ++r) {
          std::size_t lane = std::size_t(stream_) * std::size_t(p_) + std::size_t(r);
          while (step[lane] < sched.stepCount(r)) {
            ops.clear();
            sched.appendOps(r, step[lane], ops);
            if (!posted[lane]) {
              post(r, ops, copies[lane]);
              posted[lane] = true;
              progress = true;
            }
            if (!receivesReady(r, ops)) break;
            complete(r, step[lane], ops, copies[lane]);
            ++step[lane];
            posted[lane] = false;
            progress = true;
          }
        }
      }
    }
    for (int st = 0; st < streams; ++st)
      for (int r = 0; r < p_; ++r) {
        int at = step[std::size_t(st) * std::size_t(p_) + std::size_t(r)];
        if (at < s_.stream(st).stepCount(r))
          fail("deadlock: " + where(r, at) + (streams > 1 ? " (stream " + std::to_string(st) + ")" : "") +
               " waits for a message that is never sent");
      }
    const std::uint64_t p = std::uint64_t(p_);
    std::vector<std::pair<std::uint64_t, std::size_t>> unreceived; // reported in channel order
    for (const auto& [key, q] : inFlight_)
      if (!q.empty()) unreceived.emplace_back(key, q.size());
    std::sort(unreceived.begin(), unreceived.end());
    for (const auto& [key, count] : unreceived)
      fail(std::to_string(count) + " send(s) from rank " + std::to_string(key / p % p) + " to rank " +
           std::to_string(key % p) + " never received");
  }

  // Element e of rank r must hold exactly `want` of input element `source`.
  void expect(int r, std::uint64_t e, const std::vector<std::uint64_t>& want, std::uint64_t source) {
    Cells& cells = buffers_[r];
    const std::uint64_t* got = cells.set(e);
    const char* what = collectiveName(spec_.op);
    if (cells.source[e] != source) {
      fail("rank " + std::to_string(r) + " element " + std::to_string(e) + " holds " +
           (cells.source[e] == kNoData ? std::string("no data") : "input element " + std::to_string(cells.source[e])) +
           " instead of input element " + std::to_string(source) + " (" + what + ")");
      return;
    }
    for (int q = 0; q < p_; ++q) {
      bool has = got[q / 64] >> (q % 64) & 1, should = want[q / 64] >> (q % 64) & 1;
      if (has == should) continue;
      fail("rank " + std::to_string(r) + " element " + std::to_string(e) +
           (should ? " lacks the contribution of rank " : " holds an unexpected contribution of rank ") +
           std::to_string(q) + " (" + what + ")");
      return;
    }
  }

  void checkFinalState() {
    std::vector<std::uint64_t> all(words_, 0), one(words_, 0);
    for (int q = 0; q < p_; ++q) all[q / 64] |= 1ULL << (q % 64);
    auto only = [&](int q) -> const std::vector<std::uint64_t>& {
      std::fill(one.begin(), one.end(), 0);
      one[q / 64] |= 1ULL << (q % 64);
      return one;
    };
    for (int r = 0; r < p_ && report_.ok(); ++r) {
      switch (spec_.op) {
      case Collective::AllReduce:
        for (std::uint64_t e = 0; e < spec_.count; ++e) expect(r, e, all, e);
        break;
      case Collective::ReduceScatter:
        for (std::uint64_t e = block(r).first; e < block(r).first + block(r).count; ++e) expect(r, e, all, e);
        break;
      case Collective::Reduce:
        if (r == spec_.root)
          for (std::uint64_t e = 0; e < spec_.count; ++e) expect(r, e, all, e);
        break;
      case Collective::AllGather:
        for (int q = 0; q < p_; ++q)
          for (std::uint64_t e = block(q).first; e < block(q).first + block(q).count; ++e) expect(r, e, only(q), e);
        break;
      case Collective::Broadcast:
        for (std::uint64_t e = 0; e < spec_.count; ++e) expect(r, e, only(spec_.root), e);
        break;
      case Collective::AllToAll:
        // Output block j (after the input area) holds rank j's input block r.
        for (int j = 0; j < p_; ++j)
          for (std::uint64_t k = 0; k < block(j).count; ++k)
            expect(r, spec_.count + block(j).first + k, only(j), block(r).first + k);
        break;
      }
    }
  }

  const Schedule& s_;
  const CollectiveSpec& spec_;
  int p_;
  std::size_t words_;
  std::vector<Cells> buffers_;
  std::unordered_map<std::uint64_t, std::deque<Message>> inFlight_; // hashed: a mesh has p^2 channels
  int stream_ = 0; // the stream whose messages channel() addresses
  std::vector<int> laneStep_; // steps completed per (stream, rank)
  // Several streams: per (stream, rank) lane, its clock after each step
  // (index n: after n steps), and the clock of the step being completed.
  std::vector<std::vector<std::vector<std::uint32_t>>> history_;
  std::vector<std::uint32_t> clock_;
  CheckReport report_;
};

} // namespace

std::string CheckReport::summary() const {
  std::ostringstream os;
  for (std::size_t i = 0; i < problems.size(); ++i) os << (i ? "\n" : "") << problems[i];
  return os.str();
}

CheckReport checkSchedule(const Schedule& schedule, const CollectiveSpec& spec) {
  return Checker(schedule, spec).run();
}

} // namespace collsim
