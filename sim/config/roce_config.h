// The `roce:` keys of a cluster YAML beyond the link itself, and the
// `jitter:` of HCCS links:
//
//   roce:
//     bandwidth: 100Gbps
//     latency: 1us
//     mtu: 4096                   # payload bytes per packet: 256, 512, 1024, 2048 or 4096
//     queue_pairs: 4              # per connection (HCCL_RDMA_QPS_PER_CONNECTION)
//     buffer: 4MB                 # per switch egress port
//     retransmit_timeout: 100us
//     dcqcn: connectx             # connectx | paper | off | {preset: paper, g: 0.0039, cnp_interval: 50us, ...}
//     ecn: {kmin: 400KB, kmax: 1.6MB, pmax: 0.2}   # or off
//     pfc: {xoff: 512KB, xon: 384KB}               # on | off | thresholds
//     jitter: {median: 0.5us, sigma: 0.5, tail_fraction: 0.001, tail_scale: 5us, tail_shape: 2}
//     switches: {spine: {ecn: {kmin: 800KB, kmax: 3.2MB}, buffer: 16MB}, leaf3: {ecn: off}}
//   hccs: {..., jitter: {uniform: [0ns, 20ns]}}
#pragma once

#include "sim/config/config_node.h"
#include "sim/network/roce_model.h"

namespace collsim {

// `roce` and `hccs` may be absent (defaults).
RoceModel loadRoceModel(const std::optional<ConfigNode>& roce, const std::optional<ConfigNode>& hccs);
JitterModel loadJitter(const ConfigNode& node);

} // namespace collsim
