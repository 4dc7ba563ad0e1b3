// Recursive Halving-Doubling AllReduce (Rabenseifner).
//
// The p' participants cut the view into p' blocks. Halving, step k: swap
// half of the current range with the partner at distance p'/2^(k+1) and
// reduce the half kept; after log2 p' steps participant i holds the sum of
// block i. Doubling mirrors it, sending the finished range and receiving
// the partner's, until every participant holds everything.
// With p not a power of two, r = p - p' even ranks first send their whole
// buffer to their odd neighbour, which reduces it, and get the result back
// at the end.
//
// Bytes on the wire per participant: 2(p'-1)/p' n (+ n in, n out for a pair).
// Cost, p = 2^k: 2 log2(p) a + 2(p-1)/p n b + (p-1)/p n g.
// Otherwise: (2 log2(p') + 2) a + (2(p'-1)/p' + 2) n b + ((p'-1)/p' + 1) n g.
#include "algorithms/flat/power_of_two_fold.h"
#include "algorithms/flat/rhd.h"

namespace collsim {
namespace {

class RhdAllReduce final : public Schedule {
public:
  explicit RhdAllReduce(GroupView g) : g_(std::move(g)), f_(g_.size()) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return f_.steps(g_.local(rank), 2 * f_.rounds()); }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int l = g_.local(rank);
    if (f_.foldsOut(l)) {
      g_.emit(out, s == 0 ? OpKind::Send : OpKind::Recv, l + 1, g_.all());
      return;
    }
    if (f_.absorbs(l)) {
      if (s == 0) return g_.emit(out, OpKind::RecvReduce, l - 1, g_.all());
      if (s == stepCount(rank) - 1) return g_.emit(out, OpKind::Send, l - 1, g_.all());
      --s;
    }
    int nr = f_.participant(l), K = f_.rounds();
    if (s < K) {
      auto h = f_.halving(nr, s);
      g_.emit(out, OpKind::Send, f_.localOf(h.partner), g_.span(f_.p2, h.give, h.size));
      g_.emit(out, OpKind::RecvReduce, f_.localOf(h.partner), g_.span(f_.p2, h.keep, h.size));
    } else {
      auto d = f_.doubling(nr, s - K);
      g_.emit(out, OpKind::Send, f_.localOf(d.partner), g_.span(f_.p2, d.keep, d.size));
      g_.emit(out, OpKind::Recv, f_.localOf(d.partner), g_.span(f_.p2, d.give, d.size));
    }
  }

private:
  GroupView g_;
  PowerOfTwoFold f_;
};

} // namespace

SchedulePtr rhdAllReduce(const GroupView& g) { return std::make_unique<RhdAllReduce>(g); }

AlgorithmEntry rhdAllReduceEntry() {
  return {Collective::AllReduce,
          "rhd",
          "recursive halving reduce-scatter then recursive doubling all-gather (Rabenseifner)",
          "2 log2(p) a + 2(p-1)/p n b + (p-1)/p n g; p not 2^k: (2 log2 p' + 2) a + (2(p'-1)/p' + 2) n b + ((p'-1)/p' + 1) n g",
          [](const GroupView& g, const CollectiveSpec&) { return rhdAllReduce(g); },
          [](int p, double n, const CostModel& m) {
            PowerOfTwoFold f(p);
            double q = f.p2, folds = f.extra > 0 ? 1 : 0;
            return (2 * f.rounds() + 2 * folds) * m.alpha + (2 * (q - 1) / q + 2 * folds) * n * m.beta +
                   ((q - 1) / q + folds) * n * m.gamma;
          },
          anyRankCount};
}

} // namespace collsim
