// NHR and NB schedules (see bruck_like.h). Reduce-scatter step k, rank i,
// direction s (-1 NHR, +1 NB), d = 2^k, m = floor((p - 1 + d) / 2d):
//   send blocks i + s d, i + s d + s 2d, ... (m of them) to rank i + s d,
//   receive-reduce blocks i, i + s 2d, ... (m of them) from rank i - s d.
// Block i travels towards rank i over distances that add up to p-1, and
// every rank's share of it joins on the way. The all-gather runs the steps
// from the last to the first with every send and receive swapped, so the
// finished block i spreads back along the same paths.
#include "algorithms/flat/bruck_like.h"

#include "algorithms/core/compose.h"

namespace collsim {

int bruckSteps(int p) {
  int k = 0;
  for (int t = p - 1; t != 0; t >>= 1) ++k;
  return k;
}

namespace {

int blocksInStep(int p, int k) { return (p - 1 + (1 << k)) / (1 << (k + 1)); }

class BruckLikeHalf final : public Schedule {
public:
  BruckLikeHalf(GroupView g, int direction, bool gather)
      : g_(std::move(g)), s_(direction), gather_(gather), steps_(bruckSteps(g_.size())) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 ? 0 : steps_; }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    int p = g_.size(), i = g_.local(rank);
    int k = gather_ ? steps_ - 1 - step : step;
    int d = 1 << k, m = blocksInStep(p, k);
    int far = wrap(i + s_ * d, p), near = wrap(i - s_ * d, p);
    for (int j = 0; j < m; ++j) {
      int sendBlock = wrap(i + s_ * d + s_ * 2 * d * j, p), recvBlock = wrap(i + s_ * 2 * d * j, p);
      if (!gather_) {
        g_.emit(out, OpKind::Send, far, g_.block(sendBlock));
        g_.emit(out, OpKind::RecvReduce, near, g_.block(recvBlock));
      } else { // reversed: what was received is sent back, and vice versa
        g_.emit(out, OpKind::Send, near, g_.block(recvBlock));
        g_.emit(out, OpKind::Recv, far, g_.block(sendBlock));
      }
    }
  }

private:
  GroupView g_;
  int s_;
  bool gather_;
  int steps_;
};

double halfCost(int p, double n, const CostModel& m, bool reduce) {
  return bruckSteps(p) * m.alpha + (p - 1.0) / p * n * (m.beta + (reduce ? m.gamma : 0));
}

template <typename Build, typename Cost>
AlgorithmEntry entry(Collective op, const char* name, const char* summary, const char* formula, Build build, Cost cost) {
  return {op, name, summary, formula, build, cost, anyRankCount};
}

} // namespace

SchedulePtr bruckLikeReduceScatter(const GroupView& g, int direction) {
  return std::make_unique<BruckLikeHalf>(g, direction, false);
}
SchedulePtr bruckLikeAllGather(const GroupView& g, int direction) {
  return std::make_unique<BruckLikeHalf>(g, direction, true);
}
SchedulePtr bruckLikeAllReduce(const GroupView& g, int direction) {
  return sequence(bruckLikeReduceScatter(g, direction), bruckLikeAllGather(g, direction));
}

AlgorithmEntry nhrReduceScatterEntry() {
  return entry(Collective::ReduceScatter, "nhr", "HCCL nonuniform hierarchical ring: ceil(log2 p) steps, any p",
               "ceil(log2 p) a + (p-1)/p n (b + g)",
               [](const GroupView& g, const CollectiveSpec&) { return bruckLikeReduceScatter(g, -1); },
               [](int p, double n, const CostModel& m) { return halfCost(p, n, m, true); });
}
AlgorithmEntry nhrAllGatherEntry() {
  return entry(Collective::AllGather, "nhr", "HCCL nonuniform hierarchical ring: ceil(log2 p) steps, any p",
               "ceil(log2 p) a + (p-1)/p n b",
               [](const GroupView& g, const CollectiveSpec&) { return bruckLikeAllGather(g, -1); },
               [](int p, double n, const CostModel& m) { return halfCost(p, n, m, false); });
}
AlgorithmEntry nhrAllReduceEntry() {
  return entry(Collective::AllReduce, "nhr", "HCCL nonuniform hierarchical ring: 2 ceil(log2 p) steps, any p",
               "2 ceil(log2 p) a + 2(p-1)/p n b + (p-1)/p n g",
               [](const GroupView& g, const CollectiveSpec&) { return bruckLikeAllReduce(g, -1); },
               [](int p, double n, const CostModel& m) { return halfCost(p, n, m, true) + halfCost(p, n, m, false); });
}
AlgorithmEntry nbReduceScatterEntry() {
  return entry(Collective::ReduceScatter, "nb", "HCCL nonuniform Bruck: ceil(log2 p) steps, any p",
               "ceil(log2 p) a + (p-1)/p n (b + g)",
               [](const GroupView& g, const CollectiveSpec&) { return bruckLikeReduceScatter(g, +1); },
               [](int p, double n, const CostModel& m) { return halfCost(p, n, m, true); });
}
AlgorithmEntry nbAllGatherEntry() {
  return entry(Collective::AllGather, "nb", "HCCL nonuniform Bruck: ceil(log2 p) steps, any p",
               "ceil(log2 p) a + (p-1)/p n b",
               [](const GroupView& g, const CollectiveSpec&) { return bruckLikeAllGather(g, +1); },
               [](int p, double n, const CostModel& m) { return halfCost(p, n, m, false); });
}
AlgorithmEntry nbAllReduceEntry() {
  return entry(Collective::AllReduce, "nb", "HCCL nonuniform Bruck: 2 ceil(log2 p) steps, any p",
               "2 ceil(log2 p) a + 2(p-1)/p n b + (p-1)/p n g",
               [](const GroupView& g, const CollectiveSpec&) { return bruckLikeAllReduce(g, +1); },
               [](int p, double n, const CostModel& m) { return halfCost(p, n, m, true) + halfCost(p, n, m, false); });
}

} // namespace collsim
