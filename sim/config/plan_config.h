// Reading a scenario's `plan:` section (for `collsim plan`):
//
//   plan:
//     global_batch: 256        # samples per optimizer step (required)
//     tp: [2, 4, 8]            # candidates (default: divisors of the heads within a server)
//     pp: [4, 8, 16]           # default: divisors of the layers
//     ep: [1, 8]               # default: 1, or for a MoE model the divisors of its experts
//     expert_imbalance: 1.2    # the busiest device's expert work over the mean (default 1)
//     micro_batch: [1, 2]      # default: the model's
//     zero: [0, 1]             # default: 0, 1, 2, 3
//     schedule: [1f1b, gpipe]  # default: 1f1b; interleaved too
//     virtual_stages: [2, 4]   # the interleaved schedule's chunks per device (default 2)
//     cp: [1, 2]               # context parallelism (default 1)
//     recomputation: [none, selective, full]   # default: the model's
//     sequence_parallel: true  # under tp > 1 (default true)
//     tp_across_servers: false # let TP groups span servers (default false)
// A single value stands for a list of one.
#pragma once

#include "sim/workload/layout_search.h"

namespace collsim {

class ConfigNode;

PlanSpace loadPlanSpace(const ConfigNode& node);

} // namespace collsim
