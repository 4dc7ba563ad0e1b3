// Recursive Doubling AllGather.
//
// Participants swap ever larger ranges with partners at distances 1, 2, 4,
// ...: after log2 p' steps each holds everything. A participant starts with
// the blocks of the ranks it stands for (folded pairs: the even rank first
// sends its block to its odd partner, and at the end receives all other
// blocks back, as two ranges around its own).
//
// Cost, p = 2^k: log2(p) a + (p-1)/p n b.
// Otherwise the ranges are unequal (see reducescatter_rhd.cpp); the registry
// gives the estimate (log2 p' + 2) a + (1/p + (p'-1)/p' + 1) n b.
#include "algorithms/flat/power_of_two_fold.h"
#include "algorithms/flat/rhd.h"

namespace collsim {
namespace {

class RhdAllGather final : public Schedule {
public:
  explicit RhdAllGather(GroupView g) : g_(std::move(g)), f_(g_.size()) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return f_.steps(g_.local(rank), f_.rounds()); }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int l = g_.local(rank);
    if (f_.foldsOut(l)) {
      if (s == 0) return g_.emit(out, OpKind::Send, l + 1, g_.block(l));
      for (Block b : around(l)) g_.emit(out, OpKind::Recv, l + 1, b);
      return;
    }
    if (f_.absorbs(l)) {
      if (s == 0) return g_.emit(out, OpKind::Recv, l - 1, g_.block(l - 1));
      if (s == stepCount(rank) - 1) {
        for (Block b : around(l - 1)) g_.emit(out, OpKind::Send, l - 1, b);
        return;
      }
      --s;
    }
    auto d = f_.doubling(f_.participant(l), s);
    int partner = f_.localOf(d.partner);
    g_.emit(out, OpKind::Send, partner, f_.participantBlocks(g_, d.keep, d.size));
    g_.emit(out, OpKind::Recv, partner, f_.participantBlocks(g_, d.give, d.size));
  }

private:
  // Everything but block l: the ranges before and after it.
  std::vector<Block> around(int l) const {
    Block mine = g_.block(l);
    return {{0, mine.first}, {mine.first + mine.count, g_.count() - mine.first - mine.count}};
  }

  GroupView g_;
  PowerOfTwoFold f_;
};

} // namespace

SchedulePtr rhdAllGather(const GroupView& g) { return std::make_unique<RhdAllGather>(g); }

AlgorithmEntry rhdAllGatherEntry() {
  return {Collective::AllGather,
          "rhd",
          "recursive doubling: log2 p swaps of doubling ranges",
          "log2(p) a + (p-1)/p n b (p = 2^k; otherwise an estimate)",
          [](const GroupView& g, const CollectiveSpec&) { return rhdAllGather(g); },
          [](int p, double n, const CostModel& m) { return PowerOfTwoFold::halfCost(p, n, m, false); },
          anyRankCount};
}

} // namespace collsim
