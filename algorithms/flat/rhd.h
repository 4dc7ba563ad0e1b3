// Recursive halving-doubling family (MPICH, HCCL "H-D_R"): log2 steps
// between partners at distances p'/2, p'/4, ... and back; rank counts that
// are not a power of two fold onto one first (power_of_two_fold.h).
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

SchedulePtr rhdReduceScatter(const GroupView& g);
SchedulePtr rhdAllGather(const GroupView& g);
SchedulePtr rhdAllReduce(const GroupView& g);
SchedulePtr recursiveDoublingAllReduce(const GroupView& g);

AlgorithmEntry rhdReduceScatterEntry();
AlgorithmEntry rhdAllGatherEntry();
AlgorithmEntry rhdAllReduceEntry();
AlgorithmEntry recursiveDoublingAllReduceEntry();

} // namespace collsim
