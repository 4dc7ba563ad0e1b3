// HCCL's NHR ("nonuniform hierarchical ring") and NB ("nonuniform Bruck"):
// ceil(log2 p) steps at distances 1, 2, 4, ...; in reduce-scatter step k a
// rank sends floor((p - 1 + 2^k) / 2^(k+1)) blocks, spaced 2^(k+1) apart, to
// the rank at distance 2^k, and the all-gather runs the steps backwards.
// NHR sends to the lower rank (i - 2^k), NB to the higher one (i + 2^k).
// HCCL's NHR also renumbers blocks so that the blocks of a step are
// contiguous (fewer, larger DMA transfers); collsim sends them as separate
// operations, which on the link model costs the same time.
//
// Bytes on the wire per rank: (p-1)/p n per half, for any p.
// Cost: ceil(log2 p) a + (p-1)/p n b (+ (p-1)/p n g for reduce-scatter);
// AllReduce twice the steps and bytes.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

// direction -1: NHR, +1: NB.
SchedulePtr bruckLikeReduceScatter(const GroupView& g, int direction);
SchedulePtr bruckLikeAllGather(const GroupView& g, int direction);
SchedulePtr bruckLikeAllReduce(const GroupView& g, int direction);

AlgorithmEntry nhrReduceScatterEntry();
AlgorithmEntry nhrAllGatherEntry();
AlgorithmEntry nhrAllReduceEntry();
AlgorithmEntry nbReduceScatterEntry();
AlgorithmEntry nbAllGatherEntry();
AlgorithmEntry nbAllReduceEntry();

// ceil(log2 p): the number of steps of each half.
int bruckSteps(int p);

} // namespace collsim
