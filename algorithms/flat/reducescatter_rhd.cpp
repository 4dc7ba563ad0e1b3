// Recursive Halving ReduceScatter.
//
// The halving of RHD AllReduce, with the view cut into p blocks (block r
// ends on rank r). A participant stands for the blocks of the ranks it
// represents: one, or two for the odd rank of a folded pair, so the ranges
// it swaps are contiguous. Folded pairs: the even rank first sends its whole
// buffer (reduced by its partner) and at the end receives its own block.
//
// Cost, p = 2^k: log2(p) a + (p-1)/p n b + (p-1)/p n g.
// Otherwise the halves a pair's participant swaps are unequal (it stands for
// two blocks), as in MPICH, and there is no simple closed form; the registry
// gives the estimate (log2 p' + 2) a + ((p'-1)/p' + 1 + 1/p) n b + ((p'-1)/p' + 1) n g.
#include "algorithms/flat/power_of_two_fold.h"
#include "algorithms/flat/rhd.h"

namespace collsim {
namespace {

class RhdReduceScatter final : public Schedule {
public:
  explicit RhdReduceScatter(GroupView g) : g_(std::move(g)), f_(g_.size()) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return f_.steps(g_.local(rank), f_.rounds()); }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int l = g_.local(rank);
    if (f_.foldsOut(l)) {
      if (s == 0) g_.emit(out, OpKind::Send, l + 1, g_.all());
      else g_.emit(out, OpKind::Recv, l + 1, g_.block(l));
      return;
    }
    if (f_.absorbs(l)) {
      if (s == 0) return g_.emit(out, OpKind::RecvReduce, l - 1, g_.all());
      if (s == stepCount(rank) - 1) return g_.emit(out, OpKind::Send, l - 1, g_.block(l - 1));
      --s;
    }
    auto h = f_.halving(f_.participant(l), s);
    int partner = f_.localOf(h.partner);
    g_.emit(out, OpKind::Send, partner, f_.participantBlocks(g_, h.give, h.size));
    g_.emit(out, OpKind::RecvReduce, partner, f_.participantBlocks(g_, h.keep, h.size));
  }

private:

  GroupView g_;
  PowerOfTwoFold f_;
};

} // namespace

SchedulePtr rhdReduceScatter(const GroupView& g) { return std::make_unique<RhdReduceScatter>(g); }

AlgorithmEntry rhdReduceScatterEntry() {
  return {Collective::ReduceScatter,
          "rhd",
          "recursive halving: log2 p swaps of halves with partners at halving distances",
          "log2(p) a + (p-1)/p n b + (p-1)/p n g (p = 2^k; otherwise an estimate)",
          [](const GroupView& g, const CollectiveSpec&) { return rhdReduceScatter(g); },
          [](int p, double n, const CostModel& m) { return PowerOfTwoFold::halfCost(p, n, m, true); },
          anyRankCount};
}

} // namespace collsim
