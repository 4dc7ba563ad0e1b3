// Ring ReduceScatter.
//
// The view is cut into p blocks (blockOf). In step s = 0..p-2, local rank i
// sends block (i-s-1) mod p to rank i+1 and receives block (i-s-2) mod p
// from rank i-1, reducing it into its own copy. The block a rank receives in
// step s is the one it forwards in step s+1, so after p-1 steps rank i holds
// the sum of block i over all ranks.
//
// Bytes on the wire per rank: (p-1)/p n. Steps: p-1, each one hop to the
// next rank. Cost: (p-1) alpha + (p-1)/p n beta + (p-1)/p n gamma.
// Any p >= 1 (p = 1 has no steps); blocks differ by at most one element.
#include "algorithms/flat/ring.h"

namespace collsim {
namespace {

class RingReduceScatter final : public Schedule {
public:
  explicit RingReduceScatter(GroupView g) : g_(std::move(g)) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 ? 0 : g_.size() - 1; }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int p = g_.size(), i = g_.local(rank);
    g_.emit(out, OpKind::Send, wrap(i + 1, p), g_.block(wrap(i - s - 1, p)));
    g_.emit(out, OpKind::RecvReduce, wrap(i - 1, p), g_.block(wrap(i - s - 2, p)));
  }

private:
  GroupView g_;
};

} // namespace

SchedulePtr ringReduceScatter(const GroupView& g) { return std::make_unique<RingReduceScatter>(g); }

AlgorithmEntry ringReduceScatterEntry() {
  return {Collective::ReduceScatter,
          "ring",
          "p-1 neighbour steps, each rank forwards a partial sum to the next",
          "(p-1) a + (p-1)/p n b + (p-1)/p n g",
          [](const GroupView& g, const CollectiveSpec&) { return ringReduceScatter(g); },
          [](int p, double n, const CostModel& m) {
            return (p - 1) * m.alpha + (p - 1.0) / p * n * (m.beta + m.gamma);
          },
          anyRankCount};
}

} // namespace collsim
