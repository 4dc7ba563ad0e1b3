// Cluster YAML (configs/clusters/*.yaml) -> the topology (Cluster) and how
// its NICs and switches behave (RoceModel, from `roce:` and `hccs.jitter`).
//
//   name: hccs-ring-8
//   description: free text
//   servers: 1
//   devices: 8
//   scale_up: {shape: ring, bandwidth: 12GB/s, latency: 1us}   # ring | mesh | 2x4 | links | switch
//   scale_out: {name: InfiniBand, bandwidth: 400Gbps, latency: 1us}   # between servers
// `scale_up:` and `scale_out:` were `hccs:` and `roce:` (Ascend's names),
// which stay as aliases; `name:` says what descriptions call the links
// (default: scale-up and scale-out, or HCCS and RoCE under the old keys).
//   inter_group: {bandwidth: 8GB/s, latency: 2us}          # 2x4 only
//   device: {step_overhead: 0us, reduce_bandwidth: 400GB/s,
//            flops: 256TFLOPS, memory: 32GiB, memory_bandwidth: 1.2TB/s}
//   library: nccl                                          # see library_config.h
// A link's `efficiency` (hccs, roce; default 1) is the share of its line
// rate that carries data (calibrate fits it): the link runs at bandwidth x efficiency.
#pragma once

#include <string>
#include <vector>

#include "sim/config/config_node.h"
#include "sim/run/library_model.h"
#include "sim/network/roce_model.h"
#include "topologies/cluster.h"

namespace collsim {

struct ClusterSetup {
  Cluster cluster;
  RoceModel roce;
  LibraryModel library = {}; // `library:`, ideal when absent
  std::string resolvedYaml = {}; // loadClusterFile: the file with its overrides, for provenance
};

// A cluster file's `device:` mapping (device_presets.h); ascend-910 when absent.
DeviceModel loadDevice(const std::optional<ConfigNode>& node);

// Throws ConfigError (with the place in the file), also when PFC is on and a
// switch's buffer cannot hold the headroom its links need.

ClusterSetup loadCluster(const ConfigNode& node);
// `library: nccl` as `library: {name: nccl}`, so that its figures can be set
// ("library.launch=10us").
void libraryAsMapping(YAML::Node& root);
// `assignment` (a --set or a key path, after `prefix`: "" in a cluster file,
// "cluster." in a scenario) with its section named as `cluster` writes it:
// hccs.bandwidth=... reaches a file that says scale_up:, and the other way.
std::string asWrittenInCluster(const YAML::Node& cluster, const std::string& assignment, const std::string& prefix);
// A --set assignment on a cluster file's tree (library.X on a preset name too).
void applyClusterOverride(YAML::Node& root, const std::string& assignment, ConfigOrigins& origins);

// A cluster's `device:` given by a preset's name (`device: h100-sxm5-80gb`)
// becomes {name: ...}; given by the path of a device file (what `collsim
// calibrate` writes), that file's mapping, relative to `base`. `path` is the
// key's dotted path from the root ("device" in a cluster file, "cluster.device"
// in a scenario).
void inlineDevice(YAML::Node& cluster, const std::string& path, const std::filesystem::path& base,
                  ConfigOrigins& origins, const std::shared_ptr<ConfigOrigins>& shared);

// A cluster file, with --set overrides applied, spelled as in the file
// ("hccs.bandwidth=24GB/s") or as in a scenario ("cluster.hccs.bandwidth=...").
ClusterSetup loadClusterFile(const std::string& file, const std::vector<std::string>& overrides);

} // namespace collsim
