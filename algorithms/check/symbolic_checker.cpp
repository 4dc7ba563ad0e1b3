#include "algorithms/check/symbolic_checker.h"

#include <cstdint>
#include <deque>
#include <map>
#include <sstream>

namespace collsim {
namespace {

constexpr std::size_t kMaxProblems = 12;

// Contributor sets of `elems` elements, `words` 64-bit words per element.
struct SetArray {
  std::size_t words = 1;
  std::vector<std::uint64_t> bits;
  std::uint64_t* at(std::uint64_t e) { return bits.data() + e * words; }
};

struct Message {
  std::uint64_t firstElem;
  std::uint64_t elems;
  std::vector<std::uint64_t> sets;
};

class Checker {
public:
  Checker(const Schedule& s, const CollectiveSpec& spec) : s_(s), spec_(spec) {
    p_ = spec.ranks;
    words_ = std::size_t((p_ + 63) / 64);
  }

  CheckReport run() {
    if (s_.ranks() != p_) {
      fail("schedule has " + std::to_string(s_.ranks()) + " ranks, the collective " +
           std::to_string(p_));
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

  void set(SetArray& a, std::uint64_t e, int rank) { a.at(e)[rank / 64] |= 1ULL << (rank % 64); }

  void initBuffers() {
    buffers_.assign(std::size_t(p_), SetArray{words_, std::vector<std::uint64_t>(spec_.count * words_, 0)});
    for (int r = 0; r < p_; ++r) {
      switch (spec_.op) {
      case Collective::AllReduce:
      case Collective::ReduceScatter:
      case Collective::Reduce:
        for (std::uint64_t e = 0; e < spec_.count; ++e) set(buffers_[r], e, r);
        break;
      case Collective::AllGather: {
        Block b = blockOf(spec_.count, p_, r);
        for (std::uint64_t e = b.first; e < b.first + b.count; ++e) set(buffers_[r], e, r);
        break;
      }
      case Collective::Broadcast:
        if (r == spec_.root)
          for (std::uint64_t e = 0; e < spec_.count; ++e) set(buffers_[r], e, r);
        break;
      }
    }
  }

  // Peers, alignment, bounds and in-step overlaps, for every operation.
  bool validateOps() {
    std::vector<Op> ops;
    const std::uint64_t size = spec_.bytes();
    for (int r = 0; r < p_; ++r) {
      for (int k = 0; k < s_.stepCount(r); ++k) {
        ops.clear();
        s_.appendOps(r, k, ops);
        for (const Op& op : ops) {
          if (op.peer < 0 || op.peer >= p_ || op.peer == r)
            fail(where(r, k) + ": peer " + std::to_string(op.peer) + " is not another rank");
          else if (op.offset % spec_.elemSize || op.bytes % spec_.elemSize)
            fail(where(r, k) + ": range is not aligned to " + std::to_string(spec_.elemSize) + "-byte elements");
          else if (op.offset + op.bytes > size)
            fail(where(r, k) + ": range [" + std::to_string(op.offset) + ", " +
                 std::to_string(op.offset + op.bytes) + ") is outside the " + std::to_string(size) + "-byte buffer");
        }
        for (std::size_t a = 0; a < ops.size(); ++a) {
          for (std::size_t b = a + 1; b < ops.size(); ++b) {
            const Op &x = ops[a], &y = ops[b];
            bool overlap = x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
            bool writes = x.kind != OpKind::Send || y.kind != OpKind::Send;
            if (overlap && writes && x.bytes && y.bytes)
              fail(where(r, k) + ": operations " + std::to_string(a) + " and " + std::to_string(b) +
                   " touch the same bytes while one of them writes");
          }
        }
      }
    }
    return report_.ok();
  }

  std::deque<Message>& channel(int src, int dst) { return inFlight_[std::uint64_t(src) * std::uint64_t(p_) + std::uint64_t(dst)]; }

  void post(int r, const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind != OpKind::Send) continue;
      Message m{op.offset / spec_.elemSize, op.bytes / spec_.elemSize, {}};
      auto* from = buffers_[r].at(m.firstElem);
      m.sets.assign(from, from + m.elems * words_);
      channel(r, op.peer).push_back(std::move(m));
    }
  }

  // True when every receive of the step has its message waiting.
  bool receivesReady(int r, const std::vector<Op>& ops) {
    std::map<int, std::size_t> needed;
    for (const Op& op : ops)
      if (op.kind != OpKind::Send) ++needed[op.peer];
    for (auto [peer, n] : needed)
      if (channel(peer, r).size() < n) return false;
    return true;
  }

  void receive(int r, int k, const std::vector<Op>& ops) {
    for (const Op& op : ops) {
      if (op.kind == OpKind::Send) continue;
      auto& q = channel(op.peer, r);
      Message m = std::move(q.front());
      q.pop_front();
      std::uint64_t elems = op.bytes / spec_.elemSize;
      if (m.elems != elems) {
        fail(where(r, k) + ": receives " + std::to_string(op.bytes) + " bytes from rank " +
             std::to_string(op.peer) + " whose matching send has " +
             std::to_string(m.elems * spec_.elemSize));
        continue;
      }
      std::uint64_t* dst = buffers_[r].at(op.offset / spec_.elemSize);
      for (std::size_t w = 0; w < elems * words_; ++w) {
        if (op.kind == OpKind::Recv) {
          dst[w] = m.sets[w];
        } else {
          if (dst[w] & m.sets[w])
            fail(where(r, k) + ": element " + std::to_string(op.offset / spec_.elemSize + w / words_) +
                 " from rank " + std::to_string(op.peer) + " is reduced twice (a contribution counted twice)");
          dst[w] |= m.sets[w];
        }
      }
    }
  }

  void execute() {
    std::vector<int> step(std::size_t(p_), 0);
    std::vector<bool> posted(std::size_t(p_), false);
    std::vector<Op> ops;
    bool progress = true;
    while (progress && report_.problems.size() < kMaxProblems) {
      progress = false;
      for (int r = 0; r < p_; ++r) {
        while (step[r] < s_.stepCount(r)) {
          ops.clear();
          s_.appendOps(r, step[r], ops);
          if (!posted[r]) {
            post(r, ops);
            posted[r] = true;
            progress = true;
          }
          if (!receivesReady(r, ops)) break;
          receive(r, step[r], ops);
          ++step[r];
          posted[r] = false;
          progress = true;
        }
      }
    }
    for (int r = 0; r < p_; ++r)
      if (step[r] < s_.stepCount(r)) fail("deadlock: " + where(r, step[r]) + " waits for a message that is never sent");
    for (const auto& [key, q] : inFlight_)
      if (!q.empty())
        fail(std::to_string(q.size()) + " send(s) from rank " + std::to_string(key / std::uint64_t(p_)) +
             " to rank " + std::to_string(key % std::uint64_t(p_)) + " never received");
  }

  // Compares one element's set with the expected one.
  void expect(int r, std::uint64_t e, const std::vector<std::uint64_t>& want, const char* what) {
    const std::uint64_t* got = buffers_[r].at(e);
    for (std::size_t w = 0; w < words_; ++w) {
      if (got[w] != want[w]) {
        int missing = -1, extra = -1;
        for (int q = 0; q < p_; ++q) {
          bool has = got[q / 64] >> (q % 64) & 1, should = want[q / 64] >> (q % 64) & 1;
          if (should && !has && missing < 0) missing = q;
          if (has && !should && extra < 0) extra = q;
        }
        std::string why = missing >= 0 ? "lacks the contribution of rank " + std::to_string(missing)
                                       : "holds an unexpected contribution of rank " + std::to_string(extra);
        fail("rank " + std::to_string(r) + " element " + std::to_string(e) + " " + why + " (" + what + ")");
        return;
      }
    }
  }

  void checkFinalState() {
    std::vector<std::uint64_t> all(words_, 0), one(words_, 0);
    for (int q = 0; q < p_; ++q) all[q / 64] |= 1ULL << (q % 64);
    auto only = [&](int q) {
      std::fill(one.begin(), one.end(), 0);
      one[q / 64] |= 1ULL << (q % 64);
      return one;
    };
    const char* name = collectiveName(spec_.op);
    for (int r = 0; r < p_ && report_.ok(); ++r) {
      switch (spec_.op) {
      case Collective::AllReduce:
        for (std::uint64_t e = 0; e < spec_.count; ++e) expect(r, e, all, name);
        break;
      case Collective::ReduceScatter: {
        Block b = blockOf(spec_.count, p_, r);
        for (std::uint64_t e = b.first; e < b.first + b.count; ++e) expect(r, e, all, name);
        break;
      }
      case Collective::Reduce:
        if (r == spec_.root)
          for (std::uint64_t e = 0; e < spec_.count; ++e) expect(r, e, all, name);
        break;
      case Collective::AllGather:
        for (int q = 0; q < p_; ++q) {
          Block b = blockOf(spec_.count, p_, q);
          only(q);
          for (std::uint64_t e = b.first; e < b.first + b.count; ++e) expect(r, e, one, name);
        }
        break;
      case Collective::Broadcast:
        only(spec_.root);
        for (std::uint64_t e = 0; e < spec_.count; ++e) expect(r, e, one, name);
        break;
      }
    }
  }

  const Schedule& s_;
  const CollectiveSpec& spec_;
  int p_;
  std::size_t words_;
  std::vector<SetArray> buffers_;
  std::map<std::uint64_t, std::deque<Message>> inFlight_;
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
