// Cluster YAML (configs/clusters/*.yaml) -> Cluster.
//
//   name: hccs-ring-8
//   description: free text
//   servers: 1
//   devices: 8
//   hccs: {shape: ring, bandwidth: 12GB/s, latency: 1us}   # ring | mesh | 2x4 | links
//   inter_group: {bandwidth: 8GB/s, latency: 2us}          # 2x4 only
//   device: {step_overhead: 0us, reduce_bandwidth: 400GB/s,
//            flops: 256TFLOPS, memory: 32GiB, memory_bandwidth: 1.2TB/s}
#pragma once

#include <string>
#include <vector>

#include "sim/config/config_node.h"
#include "topologies/cluster.h"

namespace collsim {

Cluster loadCluster(const ConfigNode& node);
// A cluster file, with --set overrides ("hccs.bandwidth=24GB/s") applied.
Cluster loadClusterFile(const std::string& file, const std::vector<std::string>& overrides);

} // namespace collsim
