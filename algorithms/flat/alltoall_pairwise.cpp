// Pairwise AllToAll.
//
// Step k = 1..p-1: rank i sends its input block i+k to rank i+k and
// receives rank (i-k)'s block for it into output block i-k; one peer per
// step in each direction. The own block is copied locally in step 1.
// Bytes on the wire per rank: (p-1)/p n. Cost: (p-1)(a + n/p b). Any p.
#include "algorithms/flat/alltoall_blocks.h"
#include "algorithms/flat/pairwise.h"

namespace collsim {
namespace {

class PairwiseAllToAll final : public Schedule {
public:
  explicit PairwiseAllToAll(GroupView g) : g_(std::move(g)), b_(g_) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 ? 0 : std::max(1, g_.size() - 1); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    int i = g_.local(rank), p = g_.size(), k = step + 1;
    if (k == 1) {
      Op copy = g_.op(OpKind::Copy, i, b_.output(i));
      copy.srcOffset = g_.op(OpKind::Copy, i, b_.input(i)).offset;
      out.push_back(copy);
    }
    if (p == 1) return;
    g_.emit(out, OpKind::Send, wrap(i + k, p), b_.input(wrap(i + k, p)));
    g_.emit(out, OpKind::Recv, wrap(i - k, p), b_.output(wrap(i - k, p)));
  }

private:
  GroupView g_;
  AllToAllBlocks b_;
};

} // namespace

SchedulePtr pairwiseAllToAll(const GroupView& g) { return std::make_unique<PairwiseAllToAll>(g); }

AlgorithmEntry pairwiseAllToAllEntry() {
  return {Collective::AllToAll,
          "pairwise",
          "p-1 steps, in step k every rank exchanges with the ranks at distance k",
          "(p-1)(a + n/p b)",
          [](const GroupView& g, const CollectiveSpec&) { return pairwiseAllToAll(g); },
          [](int p, double n, const CostModel& m) { return (p - 1) * (m.alpha + n / p * m.beta); },
          anyRankCount};
}

} // namespace collsim
