#include "sim/workload/replica_symmetry.h"

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

} // namespace

bool movesAlong(const Schedule& schedule, const std::vector<int>& members, const RankSymmetry& symmetry,
                std::uint64_t slack) {
  std::vector<Op> here, there;
  for (int g = 0; g < symmetry.generators(); ++g) {
    for (int x : members) {
      const int y = symmetry.generate(g, x);
      const int steps = schedule.stepCount(x);
      if (schedule.stepCount(y) != steps) return false;
      for (int step = 0; step < steps; ++step) {
        here.clear(), there.clear();
        schedule.appendOps(x, step, here);
        schedule.appendOps(y, step, there);
        if (here.size() != there.size()) return false;
        for (std::size_t i = 0; i < here.size(); ++i) {
          const Op &a = here[i], &b = there[i];
          const std::uint64_t apart = a.bytes > b.bytes ? a.bytes - b.bytes : b.bytes - a.bytes;
          if (a.kind != b.kind || apart > slack || a.durationPs != b.durationPs || a.net != b.net || a.group != b.group)
            return false;
          if (communicates(a) ? symmetry.generate(g, a.peer) != b.peer : a.peer != b.peer) return false;
        }
      }
    }
  }
  return true;
}

bool movesAlongByConstruction(const std::string& name, int members, RankSymmetry::Law law) {
  // hier:A+B: A inside each server, which the shift moves whole; B between
  // the servers' members at the same place, whose server numbers it moves.
  const std::size_t plus = name.find('+');
  const std::string between = name.rfind("hier:", 0) == 0 && plus != std::string::npos ? name.substr(plus + 1) : name;
  if (law == RankSymmetry::Law::Cyclic) return between == "ring";
  return between == "rhd" && powerOfTwo(members);
}

ReplicaSymmetry findReplicaSymmetry(const Cluster& cluster, const RankPlacement& placement,
                                    const std::function<std::vector<GroupCollective>(int rank)>& gradientCollectives) {
  ReplicaSymmetry found;
  const ParallelLayout& l = placement.layout();
  const int replicas = l.dp;
  if (replicas == 1) {
    found.why = "one replica";
    return found;
  }
  const int stride = placement.rank({0, 1, 0, 0}) - placement.rank({0, 0, 0, 0});
  // One gradient group stands for all: every group's collectives are built
  // by the same algorithms from members placed alike (as the fold checks),
  // and each group runs every size of the step's (gradientCollectives).
  const int first = placement.rank({0, 0, 0, 0});
  const std::vector<int> gradients = placement.gradientGroup(first), experts = placement.expertDpGroup(first);
  const std::vector<GroupCollective> collectives = gradientCollectives(first);
  // A group whose members are replicas 0, 1, 2, ... (one rank each, no cp
  // in between) sees a shift of the replicas as one of its own members,
  // which is what an algorithm moves along with by construction.
  auto alongReplicas = [&](const std::vector<int>& members) {
    for (std::size_t k = 1; k < members.size(); ++k)
      if (members[k] - members[k - 1] != stride * (l.dp / int(members.size()))) return false;
    return int(members.size()) > 1;
  };
  found.why = "no unit of replicas fills whole servers alike";
  for (int unit = l.ep; unit < replicas; unit += l.ep) {
    if (replicas % unit != 0) continue;
    for (RankSymmetry::Law law : {RankSymmetry::Law::Cyclic, RankSymmetry::Law::Xor}) {
      if (law == RankSymmetry::Law::Xor && (!powerOfTwo(replicas) || !powerOfTwo(unit))) continue;
      RankSymmetry symmetry(cluster.ranks(), stride, replicas, unit, law);
      bool alike = true;
      for (const GroupCollective& c : collectives) {
        const std::vector<int>& members = c.experts ? experts : gradients;
        alike = alike && (int(members.size()) > kLargestGroupChecked && alongReplicas(members)
                              ? movesAlongByConstruction(c.algorithm, int(members.size()), law)
                              : movesAlong(*c.schedule, members, symmetry, std::uint64_t(c.elemSize) * members.size()));
      }
      if (!alike) {
        found.why = "the gradient collectives do not look alike from every replica";
        continue;
      }
      std::string why;
      std::optional<std::vector<std::uint32_t>> fold = foldChannels(cluster, symmetry, why);
      if (!fold) {
        if (why.find("whole servers") != std::string::npos) continue;
        found.why = why;
        return found; // the cluster is not symmetric, whatever the unit
      }
      found.symmetry = symmetry;
      found.channelFold = std::move(*fold);
      found.why.clear();
      return found;
    }
  }
  return found;
}

} // namespace collsim
