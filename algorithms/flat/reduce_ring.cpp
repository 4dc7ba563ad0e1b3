// Ring Reduce (unpipelined chain towards the root).
//
// The rank after the root sends its buffer to the next one, which reduces
// it into its own and forwards the partial sum; the root reduces last.
// Cost: (p-1)(a + n b + n g). Any p, any root.
#include "algorithms/flat/ring.h"

namespace collsim {
namespace {

class RingReduce final : public Schedule {
public:
  RingReduce(GroupView g, int root) : g_(std::move(g)), root_(root) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override {
    int i = g_.local(rank), p = g_.size();
    if (i < 0 || p == 1) return 0;
    int d = wrap(i - root_ - 1, p); // position in the chain; the root is last
    return d == 0 || d == p - 1 ? 1 : 2;
  }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int i = g_.local(rank), p = g_.size();
    bool receives = wrap(i - root_ - 1, p) != 0;
    if (receives && s == 0) g_.emit(out, OpKind::RecvReduce, wrap(i - 1, p), g_.all());
    else g_.emit(out, OpKind::Send, wrap(i + 1, p), g_.all());
  }

private:
  GroupView g_;
  int root_;
};

} // namespace

SchedulePtr ringReduce(const GroupView& g, int root) { return std::make_unique<RingReduce>(g, root); }

AlgorithmEntry ringReduceEntry() {
  return {Collective::Reduce,
          "ring",
          "partial sums are passed along the ring and end at the root",
          "(p-1)(a + n b + n g)",
          [](const GroupView& g, const CollectiveSpec& s) { return ringReduce(g, s.root); },
          [](int p, double n, const CostModel& m) { return (p - 1) * (m.alpha + n * (m.beta + m.gamma)); },
          anyRankCount};
}

} // namespace collsim
