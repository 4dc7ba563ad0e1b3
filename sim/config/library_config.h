// The `library:` section of a cluster file: which collective library moves
// the data (sim/run/library_model.h) and any of its figures changed.
//
//   library: nccl                      # ideal | nccl | hccl
//   library:
//     name: nccl
//     protocol: auto                   # or one of the library's (NCCL_PROTO)
//     channels: 16                     # the most channels (NCCL_MAX_NCHANNELS)
//     min_channels: 1                  # NCCL_MIN_NCHANNELS
//     compute_units_per_channel: 1     # SMs a channel takes from computation beside it
//     launch: 10us
//     nvls_chunk: 128KiB               # NCCL_NVLS_CHUNKSIZE
//     nvls_latency: 25us               # in place of the base latency, for in-network algorithms
//     protocols:                       # any figure of any protocol
//       LL128: {data_share: 0.9375, base_latency: 14us, hop_intra: 1.9us, hop_network: 4us,
//               step_overhead: 0, channel_bandwidth: 16.7GB/s, bus_bandwidth: none, lane_efficiency: 1,
//               chunk: 576000, wave: 0, channel_bytes: 5KiB,
//               channel_bytes_per_rank: 0, slots: 8, in_network: false, max_bytes: none}
//       LL: {bus_bandwidth: [141GB/s, 39GB/s, 20.4GB/s]}   # by servers: one, two, three or more
#pragma once

#include <optional>
#include <string>

#include "sim/config/config_node.h"
#include "sim/run/library_model.h"

namespace collsim {

// The ideal library when the section is absent.
LibraryModel loadLibrary(const std::optional<ConfigNode>& node);

} // namespace collsim
