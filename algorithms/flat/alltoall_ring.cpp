// Ring AllToAll with store-and-forward along the ring.
//
// Step s = 1..p-1: rank i sends to rank i+1 the p-s blocks it still carries
// (in step 1 its own blocks for ranks i+1..i-1), and receives p-s blocks
// that left rank i-s s steps ago: the one addressed to it goes to output
// block i-s, the others wait in its input slots i+1..i+p-s-1 (whose own
// data left in step 1) to be forwarded in step s+1. Slot ranges wrap around
// the buffer end, so a range may travel as two operations; sender and
// receiver cut it the same way. The own block is copied locally in step 1.
//
// Bytes on the wire per rank: (p-1)/2 n (n = p blocks).
// Cost: (p-1) a + (p-1)/2 n b. Any p.
#include "algorithms/flat/alltoall_blocks.h"
#include "algorithms/flat/ring.h"

namespace collsim {
namespace {

class RingAllToAll final : public Schedule {
public:
  explicit RingAllToAll(GroupView g) : g_(std::move(g)), b_(g_) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 ? 0 : std::max(1, g_.size() - 1); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    int i = g_.local(rank), p = g_.size(), s = step + 1;
    if (s == 1) out.push_back(copyOwn(i));
    if (p == 1) return;
    int next = wrap(i + 1, p), prev = wrap(i - 1, p);
    // Send: the block for rank i+1, then the ones travelling further.
    g_.emit(out, OpKind::Send, next, b_.input(next));
    slots(OpKind::Send, next, wrap(i + 2, p), p - s - 1, out);
    // Receive: the block for me, then the ones to forward.
    g_.emit(out, OpKind::Recv, prev, b_.output(wrap(i - s, p)));
    slots(OpKind::Recv, prev, next, p - s - 1, out);
  }

private:
  Op copyOwn(int i) const {
    Block from = b_.input(i), to = b_.output(i);
    Op copy = g_.op(OpKind::Copy, i, to);
    copy.srcOffset = g_.op(OpKind::Copy, i, from).offset;
    return copy;
  }
  // Input slots first, first+1, ... (n of them, modulo p) as one or two ranges.
  void slots(OpKind kind, int peer, int first, int n, std::vector<Op>& out) const {
    if (n <= 0) return;
    int p = g_.size(), head = std::min(n, p - first);
    g_.emit(out, kind, peer, b_.input(first, head));
    if (n > head) g_.emit(out, kind, peer, b_.input(0, n - head));
  }

  GroupView g_;
  AllToAllBlocks b_;
};

} // namespace

SchedulePtr ringAllToAll(const GroupView& g) { return std::make_unique<RingAllToAll>(g); }

AlgorithmEntry ringAllToAllEntry() {
  return {Collective::AllToAll,
          "ring",
          "blocks travel around the ring, forwarded by the ranks between",
          "(p-1) a + (p-1)/2 n b",
          [](const GroupView& g, const CollectiveSpec&) { return ringAllToAll(g); },
          [](int p, double n, const CostModel& m) { return (p - 1) * m.alpha + (p - 1) / 2.0 * n * m.beta; },
          anyRankCount};
}

} // namespace collsim
