// Recursive Doubling AllReduce (for small messages).
//
// In step k = 0..log2(p')-1 every participant sends its whole buffer to the
// partner at distance 2^k and reduces the partner's buffer into its own
// (a send takes its bytes when posted, so both directions see the values
// from before the step). Folding as in RHD for p not a power of two.
//
// Cost, p = 2^k: log2(p) (a + n b + n g): fewest steps, most bytes.
// Otherwise: (log2 p' + 2) a + (log2 p' + 2) n b + (log2 p' + 1) n g.
#include "algorithms/flat/power_of_two_fold.h"
#include "algorithms/flat/rhd.h"

namespace collsim {
namespace {

class RecursiveDoublingAllReduce final : public Schedule {
public:
  explicit RecursiveDoublingAllReduce(GroupView g) : g_(std::move(g)), f_(g_.size()) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return f_.steps(g_.local(rank), f_.rounds()); }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int l = g_.local(rank);
    if (f_.foldsOut(l)) return g_.emit(out, s == 0 ? OpKind::Send : OpKind::Recv, l + 1, g_.all());
    if (f_.absorbs(l)) {
      if (s == 0) return g_.emit(out, OpKind::RecvReduce, l - 1, g_.all());
      if (s == stepCount(rank) - 1) return g_.emit(out, OpKind::Send, l - 1, g_.all());
      --s;
    }
    int partner = f_.localOf(f_.participant(l) ^ (1 << s));
    g_.emit(out, OpKind::Send, partner, g_.all());
    g_.emit(out, OpKind::RecvReduce, partner, g_.all());
  }

private:
  GroupView g_;
  PowerOfTwoFold f_;
};

} // namespace

SchedulePtr recursiveDoublingAllReduce(const GroupView& g) {
  return std::make_unique<RecursiveDoublingAllReduce>(g);
}

AlgorithmEntry recursiveDoublingAllReduceEntry() {
  return {Collective::AllReduce,
          "rd",
          "recursive doubling: log2 p exchanges of the whole buffer (small messages)",
          "log2(p) (a + n b + n g) (p = 2^k)",
          [](const GroupView& g, const CollectiveSpec&) { return recursiveDoublingAllReduce(g); },
          [](int p, double n, const CostModel& m) {
            PowerOfTwoFold f(p);
            double k = f.rounds(), folds = f.extra > 0 ? 1 : 0;
            return (k + 2 * folds) * (m.alpha + n * m.beta) + (k + folds) * n * m.gamma;
          },
          anyRankCount};
}

} // namespace collsim
