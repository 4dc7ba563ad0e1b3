// Mesh ReduceScatter: one step. Rank i sends block j to rank j for every
// j != i and reduces the p-1 copies of block i it receives (the device
// reduces them one after another).
// Bytes on the wire per rank: (p-1)/p n, spread over p-1 links.
// Cost on a full mesh: a + n/p b + (p-1)/p n g. Any p.
#include "algorithms/flat/mesh.h"

namespace collsim {
namespace {

class MeshReduceScatter final : public Schedule {
public:
  explicit MeshReduceScatter(GroupView g) : g_(std::move(g)) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 || g_.size() == 1 ? 0 : 1; }
  void appendOps(int rank, int, std::vector<Op>& out) const override {
    int i = g_.local(rank), p = g_.size();
    for (int d = 1; d < p; ++d) g_.emit(out, OpKind::Send, wrap(i + d, p), g_.block(wrap(i + d, p)));
    for (int d = 1; d < p; ++d) g_.emit(out, OpKind::RecvReduce, wrap(i - d, p), g_.block(i));
  }

private:
  GroupView g_;
};

} // namespace

SchedulePtr meshReduceScatter(const GroupView& g) { return std::make_unique<MeshReduceScatter>(g); }

AlgorithmEntry meshReduceScatterEntry() {
  return {Collective::ReduceScatter,
          "mesh",
          "one step: every block goes straight to its owner over a full mesh",
          "a + n/p b + (p-1)/p n g (full mesh)",
          [](const GroupView& g, const CollectiveSpec&) { return meshReduceScatter(g); },
          [](int p, double n, const CostModel& m) {
            return (p > 1 ? m.alpha + n / p * m.beta : 0) + (p - 1.0) / p * n * m.gamma;
          },
          anyRankCount};
}

} // namespace collsim
