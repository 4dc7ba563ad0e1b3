// Pairwise exchange AllToAll.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

SchedulePtr pairwiseAllToAll(const GroupView& g);
AlgorithmEntry pairwiseAllToAllEntry();

} // namespace collsim
