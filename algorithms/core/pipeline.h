// A software pipeline over slices of the buffer (HCCL's pipelined
// hierarchical algorithms).
//
// stages[k][j] is stage j of slice k. Slice k runs as stream k, its stages
// in order; before stage j it waits until slice k-1 has finished its own
// stage j. Each stage (say, the intra-server reduce-scatter) thus handles
// the slices one after another, while different stages work on different
// slices at the same time: slice k's intra-server phase overlaps slice
// k-1's inter-server phase.
#pragma once

#include <vector>

#include "algorithms/core/schedule.h"

namespace collsim {

SchedulePtr pipeline(std::vector<std::vector<SchedulePtr>> stages);

} // namespace collsim
