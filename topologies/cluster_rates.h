// The link rates a library's topology search sees on a cluster: what one
// device reaches over its scale-up links, and what one server reaches over
// its NICs' ports into the fabric. NCCL's tuning model and its chunk rules
// (sim/nccl/nccl_tuning.h, sim/run/in_network_chunk.h) start from these.
#pragma once

#include "topologies/cluster.h"

namespace collsim {

// The sum of the scale-up links at rank `rank`'s device.
Bandwidth deviceScaleUpRate(const Cluster& cluster, int rank);

// The sum of the scale-out links at server `server`'s NICs.
Bandwidth serverScaleOutRate(const Cluster& cluster, int server);

} // namespace collsim
