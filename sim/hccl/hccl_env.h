// HCCL environment settings, read from an env file (the article's bash
// scripts) or the process environment, and what they mean in collsim.
//
// Real HCCL variables (hccl-facts.md) and the article's names, which are not
// HCCL settings, are both accepted; every variable gets a one-line notice
// saying how it was applied (or that it has no effect on the simulation),
// the article's names also saying they are not real and which real setting
// corresponds. An unknown HCCL_* name is reported, a malformed value is an
// error naming the variable.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/core/units.h"
#include "topologies/cluster.h"

namespace collsim {

struct EnvSetting {
  std::string name, value;
  std::string origin; // "file:line" or "environment"
};

// `export NAME=VALUE` lines of a shell script, in order; `if [ "$WORLD_SIZE"
// -le N ]; then ... fi` blocks (-lt -le -gt -ge -eq -ne) are evaluated with
// WORLD_SIZE = `worldSize`, other lines are ignored. Throws ConfigError.
std::vector<EnvSetting> readEnvFile(const std::string& file, int worldSize);
// The same from text; `file` names it in errors.
std::vector<EnvSetting> readEnvText(const std::string& text, const std::string& file, int worldSize);
// The HCCL_* and NCCL_* variables of this process (sim/nccl reads the latter).
std::vector<EnvSetting> readProcessEnv();

// What one variable does in collsim: "origin: NAME=VALUE: effect".
// Settings that act together (the article's selection variables) have
// no origin or value of their own.
struct SettingNotice {
  std::string origin, name, value, effect;
  std::string text() const;
};

struct HcclSettings {
  std::map<Collective, std::string> algorithm; // forced, as collsim algorithm names
  std::optional<Bytes> bufferSize;             // HCCL_BUFFSIZE: larger data runs in loops
  std::optional<std::uint32_t> mtu;            // HCCL_ROCE_MTU: roce.mtu
  std::optional<int> queuePairs;               // HCCL_RDMA_QPS_PER_CONNECTION: roce.queue_pairs
  std::optional<bool> intraServerRoce;         // HCCL_INTRA_ROCE_ENABLE
  // Training studies (the article's names; not HCCL settings):
  std::optional<Bytes> bucket;        // HCCL_ALLREDUCE_BUCKET_SIZE: training.bucket
  std::optional<bool> overlap;        // HCCL_COMM_OVERLAP: training.overlap
  std::optional<int> bucketsInFlight; // HCCL_ALLREDUCE_PIPELINE: training.pipeline 2 (on) or 1
  std::vector<SettingNotice> notices;          // one per variable
};

// Later settings override earlier ones. Throws ConfigError on a malformed value.
HcclSettings interpretHcclSettings(const std::vector<EnvSetting>& settings, const Cluster& cluster);

} // namespace collsim
