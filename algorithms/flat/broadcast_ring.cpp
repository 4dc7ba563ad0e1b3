// Ring Broadcast (unpipelined chain, as HCCL's cost model describes it).
//
// The root sends the whole buffer to the next rank, which forwards it to the
// next, and so on: p-1 steps of n bytes, one after another.
// Cost: (p-1)(a + n b). Any p, any root.
#include "algorithms/flat/ring.h"

namespace collsim {
namespace {

class RingBroadcast final : public Schedule {
public:
  RingBroadcast(GroupView g, int root) : g_(std::move(g)), root_(root) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override {
    int i = g_.local(rank), p = g_.size();
    if (i < 0 || p == 1) return 0;
    int d = wrap(i - root_, p); // hops from the root
    return d == 0 || d == p - 1 ? 1 : 2;
  }
  void appendOps(int rank, int s, std::vector<Op>& out) const override {
    int i = g_.local(rank), p = g_.size();
    bool receives = wrap(i - root_, p) != 0;
    if (receives && s == 0) g_.emit(out, OpKind::Recv, wrap(i - 1, p), g_.all());
    else g_.emit(out, OpKind::Send, wrap(i + 1, p), g_.all());
  }

private:
  GroupView g_;
  int root_;
};

} // namespace

SchedulePtr ringBroadcast(const GroupView& g, int root) { return std::make_unique<RingBroadcast>(g, root); }

AlgorithmEntry ringBroadcastEntry() {
  return {Collective::Broadcast,
          "ring",
          "the whole buffer is passed along the ring from the root",
          "(p-1)(a + n b)",
          [](const GroupView& g, const CollectiveSpec& s) { return ringBroadcast(g, s.root); },
          [](int p, double n, const CostModel& m) { return (p - 1) * (m.alpha + n * m.beta); },
          anyRankCount};
}

} // namespace collsim
