// Mesh (direct) algorithms: every rank talks to every other rank at once,
// over the p-1 links of a full mesh.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

SchedulePtr meshReduceScatter(const GroupView& g);
SchedulePtr meshAllGather(const GroupView& g);
SchedulePtr meshAllReduce(const GroupView& g);

AlgorithmEntry meshReduceScatterEntry();
AlgorithmEntry meshAllGatherEntry();
AlgorithmEntry meshAllReduceEntry();

} // namespace collsim
