// Ring algorithms: the ranks of a group form a logical ring, local rank i
// sends to i+1 and receives from i-1. Each collective has its own file.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

SchedulePtr ringReduceScatter(const GroupView& g);
SchedulePtr ringAllGather(const GroupView& g);
SchedulePtr ringAllReduce(const GroupView& g);
SchedulePtr ringBroadcast(const GroupView& g, int root);
SchedulePtr ringReduce(const GroupView& g, int root);
SchedulePtr ringAllToAll(const GroupView& g);

AlgorithmEntry ringReduceScatterEntry();
AlgorithmEntry ringAllGatherEntry();
AlgorithmEntry ringAllReduceEntry();
AlgorithmEntry ringBroadcastEntry();
AlgorithmEntry ringReduceEntry();
AlgorithmEntry ringAllToAllEntry();

} // namespace collsim
