#include "sim/workload/replica_symmetry.h"

#include <algorithm>
#include <unordered_map>

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

constexpr const char* kOneReplica = "one replica";

} // namespace

bool ReplicaSymmetry::movesPositions() const {
  return symmetry && std::any_of(symmetry->digits().begin(), symmetry->digits().end(),
                                 [](const RankSymmetry::Digit& d) { return d.letter == 't'; });
}

namespace {

using Group = GroupCollective::Group;

std::vector<int> membersOf(const RankPlacement& placement, int rank, Group group) {
  switch (group) {
  case Group::Tp: return placement.tpGroup(rank);
  case Group::Ep: return placement.epGroup(rank);
  case Group::Gradient: return placement.gradientGroup(rank);
  case Group::ExpertDp: return placement.expertDpGroup(rank);
  }
  return {};
}

bool reducesInNetwork(const Schedule& schedule, const std::vector<int>& members) {
  bool found = false;
  for (int x : members) forEachOp(schedule, x, [&](const Op& op) { found = found || op.net != InNetwork::None; });
  return found;
}

// Who talks to whom around rank `first`: its peers in its collectives both
// ways, and the next stage's and the next CP rank (routes a fold must keep).
std::vector<std::pair<int, int>> talksTo(const RankPlacement& placement, int first,
                                         const std::vector<GroupCollective>& collectives) {
  std::vector<std::pair<int, int>> pairs;
  const ParallelLayout& l = placement.layout();
  if (l.pp > 1) pairs.push_back({first, placement.rank({0, 0, 1, 0})});
  if (l.cp > 1) pairs.push_back({first, placement.rank({0, 0, 0, 1})});
  for (const GroupCollective& c : collectives)
    forEachOp(*c.schedule, first, [&](const Op& op) {
      if (communicates(op)) pairs.push_back(op.kind == OpKind::Send ? std::pair{first, op.peer} : std::pair{op.peer, first});
    });
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// The replicas' digit: the smallest unit of replicas under which the
// gradient collectives move along and the cluster folds (its channels in
// `fold`), or nothing with `why`.
std::optional<RankSymmetry::Digit> replicaDigit(const Cluster& cluster, const RankPlacement& placement,
                                                const std::vector<GroupCollective>& collectives,
                                                const std::vector<std::pair<int, int>>& pairs,
                                                std::vector<std::uint32_t>& fold, std::string& why) {
  const ParallelLayout& l = placement.layout();
  const int replicas = l.dp;
  if (replicas == 1) {
    why = kOneReplica;
    return std::nullopt;
  }
  const int stride = placement.rank({0, 1, 0, 0}) - placement.rank({0, 0, 0, 0});
  // One gradient group stands for all: every group's collectives are built
  // by the same algorithms from members placed alike (as the fold checks),
  // and each group runs every size of the step's (groupCollectives).
  const int first = placement.rank({0, 0, 0, 0});
  const std::vector<int> gradients = placement.gradientGroup(first), experts = placement.expertDpGroup(first);
  // A group whose members are replicas 0, 1, 2, ... (one rank each, no cp
  // in between) sees a shift of the replicas as one of its own members,
  // which is what an algorithm moves along with by construction.
  auto alongReplicas = [&](const std::vector<int>& members) {
    for (std::size_t k = 1; k < members.size(); ++k)
      if (members[k] - members[k - 1] != stride * (l.dp / int(members.size()))) return false;
    return int(members.size()) > 1;
  };
  why = "no unit of replicas fills whole servers alike";
  for (int unit = l.ep; unit < replicas; unit += l.ep) {
    if (replicas % unit != 0) continue;
    for (RankSymmetry::Law law : {RankSymmetry::Law::Cyclic, RankSymmetry::Law::Xor}) {
      if (law == RankSymmetry::Law::Xor && (!powerOfTwo(replicas) || !powerOfTwo(unit))) continue;
      const RankSymmetry::Digit digit{stride, replicas, unit, law};
      const RankSymmetry symmetry(cluster.ranks(), {digit});
      bool alike = true;
      for (const GroupCollective& c : collectives) {
        if (c.group != Group::Gradient && c.group != Group::ExpertDp) continue;
        const std::vector<int>& members = c.group == Group::ExpertDp ? experts : gradients;
        alike = alike && (int(members.size()) > kLargestGroupChecked && alongReplicas(members)
                              ? movesAlongByConstruction(c.algorithm, int(members.size()), law)
                              : movesAlong(*c.schedule, members, symmetry, std::uint64_t(c.elemSize) * members.size()));
      }
      if (!alike) {
        why = "the gradient collectives do not look alike from every replica";
        continue;
      }
      std::optional<std::vector<std::uint32_t>> folded = foldChannels(cluster, symmetry, why, pairs);
      if (!folded) {
        if (why.find("whole servers") != std::string::npos) continue;
        return std::nullopt; // the cluster is not symmetric, whatever the unit
      }
      fold = std::move(*folded);
      why.clear();
      return digit;
    }
  }
  return std::nullopt;
}

// Whether rank `first`'s collectives move along under `shift` (the TP
// positions' digit alone): each member's program onto its image's.
bool collectivesMoveAlong(const RankPlacement& placement, int first, const std::vector<GroupCollective>& collectives,
                          const std::function<std::vector<GroupCollective>(int rank)>& groupCollectives,
                          const RankSymmetry& shift, std::string& why) {
  std::unordered_map<int, std::vector<GroupCollective>> of{{first, collectives}};
  auto listOf = [&](int rank) -> const std::vector<GroupCollective>& {
    auto it = of.find(rank);
    if (it == of.end()) it = of.emplace(rank, groupCollectives(rank)).first;
    return it->second;
  };
  for (std::size_t i = 0; i < collectives.size(); ++i) {
    const GroupCollective& c = collectives[i];
    const std::vector<int> members = membersOf(placement, first, c.group);
    if (c.group == Group::Tp && reducesInNetwork(*c.schedule, members)) {
      why = "the TP group's " + c.algorithm + " reduces in the network, on the switch every position shares";
      return false;
    }
    // The TP group moves onto itself: each member's program onto another's.
    // Every other group moves onto the next position's like group, whose
    // collective is built by the same algorithm from the members moved
    // along: alike by construction, checked by its name and members.
    bool alike = true;
    if (c.group != Group::Tp) {
      for (int g = 0; alike && g < shift.generators(); ++g) {
        const int image = shift.generate(g, first);
        std::vector<int> moved = members;
        for (int& m : moved) m = shift.generate(g, m);
        alike = listOf(image)[i].algorithm == c.algorithm && membersOf(placement, image, c.group) == moved;
      }
    } else {
      alike = movesAlong([&](int rank) { return listOf(rank)[i].schedule; }, members, shift,
                         std::uint64_t(c.elemSize) * members.size());
    }
    if (!alike) {
      why = "the " + c.algorithm + " collectives do not look alike from every TP position";
      return false;
    }
  }
  return true;
}

} // namespace

std::string ReplicaSymmetry::text() const {
  if (!symmetry) return why;
  std::string out = symmetry->text();
  if (!why.empty() && why != kOneReplica) out += "; the replicas run in full: " + why;
  if (!tpWhy.empty()) out += "; the TP positions run in full: " + tpWhy;
  return out;
}

ReplicaSymmetry findReplicaSymmetry(const Cluster& cluster, const RankPlacement& placement,
                                    const std::function<std::vector<GroupCollective>(int rank)>& groupCollectives,
                                    bool positions) {
  ReplicaSymmetry found;
  const ParallelLayout& l = placement.layout();
  const int first = placement.rank({0, 0, 0, 0});
  const std::vector<GroupCollective> collectives = groupCollectives(first);
  std::vector<std::uint32_t> fold;
  std::vector<RankSymmetry::Digit> digits;
  const std::vector<std::pair<int, int>> pairs = talksTo(placement, first, collectives);
  if (auto replicas = replicaDigit(cluster, placement, collectives, pairs, fold, found.why)) digits.push_back(*replicas);
  // The TP positions, on top of the replicas' digit where there is one.
  if (positions && l.tp > 1) found.tpWhy = "no unit of TP positions moves the cluster onto itself";
  const int stride = placement.rank({1, 0, 0, 0}) - first;
  for (int unit = 1; positions && unit < l.tp; ++unit) {
    if (l.tp % unit != 0) continue;
    bool moved = false;
    for (RankSymmetry::Law law : {RankSymmetry::Law::Cyclic, RankSymmetry::Law::Xor}) {
      if (law == RankSymmetry::Law::Xor && (!powerOfTwo(l.tp) || !powerOfTwo(unit))) continue;
      const RankSymmetry::Digit digit{stride, l.tp, unit, law, "TP positions", 't'};
      if (!collectivesMoveAlong(placement, first, collectives, groupCollectives,
                                RankSymmetry(cluster.ranks(), {digit}), found.tpWhy))
        continue;
      std::vector<RankSymmetry::Digit> both = digits;
      both.push_back(digit);
      const RankSymmetry symmetry(cluster.ranks(), both);
      std::optional<std::vector<std::uint32_t>> folded = foldChannels(cluster, symmetry, found.tpWhy, pairs);
      if (!folded) continue;
      digits = std::move(both), fold = std::move(*folded), moved = true;
      found.tpWhy.clear();
      break;
    }
    if (moved) break;
  }
  if (!digits.empty()) {
    found.symmetry = RankSymmetry(cluster.ranks(), digits);
    found.channelFold = std::move(fold);
  }
  return found;
}

} // namespace collsim
