// Ring AllGather.
//
// Local rank i starts with block i of the view. In step s = 0..p-2 it sends
// block (i-s) mod p to rank i+1 and receives block (i-s-1) mod p from rank
// i-1: every block travels p-1 hops around the ring.
//
// Bytes on the wire per rank: (p-1)/p n. Steps: p-1.
// Cost: (p-1) alpha + (p-1)/p n beta. Any p >= 1.
#include "algorithms/flat/ring.h"

namespace collsim {
namespace {

class RingAllGather final : public Schedule {
public:
  explicit RingAllGather(GroupView g) : g_(std::move(g)) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 ? 0 : g_.size() - 1; }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int p = g_.size(), i = g_.local(rank);
    g_.emit(out, OpKind::Send, wrap(i + 1, p), g_.block(wrap(i - s, p)));
    g_.emit(out, OpKind::Recv, wrap(i - 1, p), g_.block(wrap(i - s - 1, p)));
  }

private:
  GroupView g_;
};

} // namespace

SchedulePtr ringAllGather(const GroupView& g) { return std::make_unique<RingAllGather>(g); }

AlgorithmEntry ringAllGatherEntry() {
  return {Collective::AllGather,
          "ring",
          "p-1 neighbour steps, each block travels once around the ring",
          "(p-1) a + (p-1)/p n b",
          [](const GroupView& g, const CollectiveSpec&) { return ringAllGather(g); },
          [](int p, double n, const CostModel& m) {
            return (p - 1) * m.alpha + (p - 1.0) / p * n * m.beta;
          },
          anyRankCount};
}

} // namespace collsim
