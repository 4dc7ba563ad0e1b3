// Mesh AllGather: one step. Rank i sends its block to every other rank and
// receives every other block directly from its owner.
// Bytes on the wire per rank: (p-1)/p n, spread over p-1 links.
// Cost on a full mesh: a + n/p b. Any p.
#include "algorithms/flat/mesh.h"

namespace collsim {
namespace {

class MeshAllGather final : public Schedule {
public:
  explicit MeshAllGather(GroupView g) : g_(std::move(g)) {}
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override { return g_.local(rank) < 0 || g_.size() == 1 ? 0 : 1; }
  void appendOps(int rank, int, std::vector<Op>& out) const override {
    int i = g_.local(rank), p = g_.size();
    for (int d = 1; d < p; ++d) g_.emit(out, OpKind::Send, wrap(i + d, p), g_.block(i));
    for (int d = 1; d < p; ++d) g_.emit(out, OpKind::Recv, wrap(i - d, p), g_.block(wrap(i - d, p)));
  }

private:
  GroupView g_;
};

} // namespace

SchedulePtr meshAllGather(const GroupView& g) { return std::make_unique<MeshAllGather>(g); }

AlgorithmEntry meshAllGatherEntry() {
  return {Collective::AllGather,
          "mesh",
          "one step: every rank sends its block straight to all others over a full mesh",
          "a + n/p b (full mesh)",
          [](const GroupView& g, const CollectiveSpec&) { return meshAllGather(g); },
          [](int p, double n, const CostModel& m) { return p > 1 ? m.alpha + n / p * m.beta : 0; },
          anyRankCount};
}

} // namespace collsim
