#include "sim/hccl/apply_settings.h"

#include "sim/scenario/scenario.h"

namespace collsim {

std::vector<EnvSetting> gatherHcclSettings(const std::string& envFile, bool process, int worldSize) {
  std::vector<EnvSetting> settings;
  if (!envFile.empty()) settings = readEnvFile(envFile, worldSize);
  if (process)
    for (auto& e : readProcessEnv()) settings.push_back(std::move(e));
  return settings;
}

void applyHcclSettings(const HcclSettings& h, Cluster& cluster, RoceModel& roce) {
  if (h.mtu) roce.mtu = *h.mtu;
  if (h.queuePairs) roce.queuePairs = *h.queuePairs;
  if (h.intraServerRoce) cluster.intraServerRoce = *h.intraServerRoce;
}

void applyHcclSettings(const HcclSettings& h, Scenario& s) {
  applyHcclSettings(h, s.cluster, s.roce);
  if (auto it = h.algorithm.find(s.op); it != h.algorithm.end()) s.algorithms = {it->second};
  if (h.bufferSize) s.simulation.loopBytes = *h.bufferSize;
  if (s.training) {
    if (h.bucket) s.training->bucket = *h.bucket;
    if (h.overlap) s.training->overlap = *h.overlap;
    if (h.bucketsInFlight) s.training->pipeline = *h.bucketsInFlight;
  }
}

} // namespace collsim
