// Mesh AllReduce = Mesh ReduceScatter, then Mesh AllGather: two steps.
// Bytes on the wire per rank: 2(p-1)/p n, spread over p-1 links.
// Cost on a full mesh: 2 a + 2/p n b + (p-1)/p n g. Any p.
#include "algorithms/core/compose.h"
#include "algorithms/flat/mesh.h"

namespace collsim {

SchedulePtr meshAllReduce(const GroupView& g) { return sequence(meshReduceScatter(g), meshAllGather(g)); }

AlgorithmEntry meshAllReduceEntry() {
  return {Collective::AllReduce,
          "mesh",
          "reduce-scatter and all-gather, each in one step over a full mesh",
          "2 a + 2/p n b + (p-1)/p n g (full mesh)",
          [](const GroupView& g, const CollectiveSpec&) { return meshAllReduce(g); },
          [](int p, double n, const CostModel& m) {
            return (p > 1 ? 2 * m.alpha + 2.0 / p * n * m.beta : 0) + (p - 1.0) / p * n * m.gamma;
          },
          anyRankCount};
}

} // namespace collsim
