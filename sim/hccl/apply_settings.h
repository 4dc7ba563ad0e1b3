// The one place HCCL settings change what is simulated: the cluster's
// network (MTU, queue pairs, intra-server RoCE), a scenario's algorithm and
// buffer loops, a training study's bucket, overlap and pipeline.
#pragma once

#include <string>
#include <vector>

#include "sim/hccl/hccl_env.h"
#include "sim/network/roce_model.h"

namespace collsim {

struct Scenario;

// Reads the env file (if any) and, with `process`, this process's HCCL_*
// variables, in that order (later settings win). WORLD_SIZE is the ranks.
std::vector<EnvSetting> gatherHcclSettings(const std::string& envFile, bool process, int worldSize);

void applyHcclSettings(const HcclSettings& h, Cluster& cluster, RoceModel& roce);
void applyHcclSettings(const HcclSettings& h, Scenario& s);

} // namespace collsim
