// Ring AllReduce = Ring ReduceScatter, then Ring AllGather.
//
// After the ReduceScatter local rank i holds the full sum of block i, which
// is exactly where the AllGather starts. 2(p-1) steps, each one hop.
// Bytes on the wire per rank: 2(p-1)/p n.
// Cost: 2(p-1) alpha + 2(p-1)/p n beta + (p-1)/p n gamma. Any p >= 1.
#include "algorithms/core/compose.h"
#include "algorithms/flat/ring.h"

namespace collsim {

SchedulePtr ringAllReduce(const GroupView& g) {
  return sequence(ringReduceScatter(g), ringAllGather(g));
}

AlgorithmEntry ringAllReduceEntry() {
  return {Collective::AllReduce,
          "ring",
          "reduce-scatter then all-gather around a ring, bandwidth-optimal",
          "2(p-1) a + 2(p-1)/p n b + (p-1)/p n g",
          [](const GroupView& g, const CollectiveSpec&) { return ringAllReduce(g); },
          [](int p, double n, const CostModel& m) {
            return 2 * (p - 1) * m.alpha + (p - 1.0) / p * n * (2 * m.beta + m.gamma);
          },
          anyRankCount};
}

} // namespace collsim
