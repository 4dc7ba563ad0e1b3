#include "sim/workload/group_algorithm.h"

#include <map>

namespace collsim {

int membersPerServer(const Cluster& cluster, const std::vector<int>& members) {
  std::map<int, int> count;
  for (int r : members) ++count[r / cluster.devicesPerServer];
  int k = count.begin()->second;
  for (const auto& [server, n] : count)
    if (n != k) return 0;
  return k;
}

// HCCL's static level-1 rule: H-D (rhd) for 8 or more, or a power of two; else ring.
static std::string levelOne(std::size_t ranks) {
  bool powerOfTwo = (ranks & (ranks - 1)) == 0;
  return ranks >= 8 || powerOfTwo ? "rhd" : "ring";
}

std::string hcclGroupAlgorithm(const Cluster& cluster, Collective op, const std::vector<int>& members) {
  const int k = membersPerServer(cluster, members);
  const std::size_t servers = k > 0 ? members.size() / std::size_t(k) : 0;
  const std::string level0 = cluster.hccsShape == HccsShape::Mesh || cluster.hccsShape == HccsShape::Switch ? "mesh" : "ring";
  if (op == Collective::AllToAll) return "pairwise"; // HCCL's AllToAll exchanges with each peer in turn
  if (servers == 1) return level0;
  if (k > 1 && op == Collective::AllReduce) return "hier:" + level0 + "+" + levelOne(servers);
  return levelOne(members.size());
}

} // namespace collsim
