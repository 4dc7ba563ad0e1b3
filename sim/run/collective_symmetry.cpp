#include "sim/run/collective_symmetry.h"

#include <algorithm>

#include "sim/executor/schedule_symmetry.h"

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Steps of each stream the representatives' check walks past
// kLargestGroupChecked ranks: a 16,384-rank ring's 32,766 steps on 16
// channels would cost as much as the folded run.
constexpr int kStepsChecked = 64;

// The ranks `first` talks to, both ways: routes the fold must keep.
// `crossesServers`: whether one of its in-network sends leaves its server
// (a switch would wait there for contributions of ranks that do not run).
std::vector<std::pair<int, int>> talksTo(const Cluster& cluster, const Schedule& schedule, int first,
                                         bool& crossesServers) {
  auto serverOf = [&](int rank) { return cluster.nodes[std::size_t(cluster.rankNode[std::size_t(rank)])].server; };
  std::vector<std::pair<int, int>> pairs;
  forEachOp(schedule, first, [&](const Op& op) {
    if (!communicates(op)) return;
    pairs.push_back(op.kind == OpKind::Send ? std::pair{first, op.peer} : std::pair{op.peer, first});
    crossesServers = crossesServers || (op.net != InNetwork::None && serverOf(op.peer) != serverOf(first));
  });
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

// Whether `schedule` moves along under `symmetry`, its sizes within `slack`
// bytes. An algorithm that does by construction (a rootless ring or
// halving-doubling, hier:A+B with either between servers) is checked on
// its representatives against their images, on every step up to
// kLargestGroupChecked ranks and on a spread of them past it: that finds
// an uneven split (a ring's representative meets every block, each against
// the block a server on). Any other is checked the same way (where a tree's
// root meets a leaf, at once), then on every rank up to
// kLargestGroupChecked, and not past it.
bool scheduleMovesAlong(const Schedule& schedule, Collective op, const std::string& algorithm,
                        const RankSymmetry& symmetry, std::uint64_t slack) {
  const int ranks = schedule.ranks();
  const bool checked = ranks <= kLargestGroupChecked;
  // A root stays where it is; AllToAll's pairs are not a ring's.
  const bool rootless = op == Collective::AllReduce || op == Collective::AllGather || op == Collective::ReduceScatter;
  const bool byConstruction = rootless && movesAlongByConstruction(algorithm, ranks, symmetry.digits().front().law);
  if (!byConstruction && !checked) return false;
  // The representatives against their images first: where a schedule does
  // not move along (a tree's root and leaves), this sees it at once.
  std::vector<int> representatives;
  for (int i = 0; i < symmetry.representatives(); ++i) representatives.push_back(symmetry.representativeAt(i));
  if (!movesAlongOnSteps(schedule, representatives, symmetry, checked ? 0 : kStepsChecked, slack)) return false;
  if (byConstruction) return true;
  std::vector<int> all(std::size_t(ranks), 0);
  for (int r = 0; r < ranks; ++r) all[std::size_t(r)] = r;
  return movesAlong(schedule, all, symmetry, slack);
}

} // namespace

std::string CollectiveSymmetry::text() const {
  if (!symmetry) return why;
  return symmetry->text() + (unevenBlocks ? ", its blocks alike to an element (the buffer does not split evenly)" : "");
}

std::string collectiveFoldRuledOut(const Cluster& cluster, bool symmetry, Fidelity fidelity, bool traced) {
  if (!symmetry) return "simulation.symmetry is off";
  if (fidelity != Fidelity::Fast) return "the packet model's queues and jitter are per port";
  if (traced) return "a trace shows every rank";
  if (cluster.servers < 2) return "one server";
  return "";
}

CollectiveSymmetry findCollectiveSymmetry(const Cluster& cluster, const Schedule& schedule, Collective op,
                                          const std::string& algorithm, std::uint32_t elemSize) {
  CollectiveSymmetry found;
  const int servers = cluster.servers, stride = cluster.devicesPerServer;
  if (servers < 2 || stride * servers != schedule.ranks()) {
    found.why = "the ranks do not fill whole servers";
    return found;
  }
  bool crossesServers = false;
  const std::vector<std::pair<int, int>> pairs = talksTo(cluster, schedule, 0, crossesServers);
  if (crossesServers) {
    found.why = "its in-network sends cross servers (a switch would wait for ranks that do not run)";
    return found;
  }
  const std::string unlike = "the " + algorithm + " schedule does not look alike from every server";
  // The cluster first: its fold costs a walk of its links, the schedule's
  // check one of a unit's steps.
  for (int unit = 1; unit < servers; ++unit) {
    if (servers % unit != 0) continue;
    for (RankSymmetry::Law law : {RankSymmetry::Law::Cyclic, RankSymmetry::Law::Xor}) {
      if (law == RankSymmetry::Law::Xor && (!powerOfTwo(servers) || !powerOfTwo(unit))) continue;
      RankSymmetry symmetry(schedule.ranks(), {{stride, servers, unit, law, "servers", 's'}});
      std::string why;
      std::optional<std::vector<std::uint32_t>> fold = foldChannels(cluster, symmetry, why, pairs);
      if (!fold) { // a larger unit may move whole groups of servers (a SuperPOD's units)
        if (found.why != unlike) found.why = why;
        continue;
      }
      // Where the buffer does not split evenly, a block is an element
      // larger on some ranks than on their images: their steps end that
      // element's time apart, which the fold does not see. Only past
      // kLargestGroupChecked ranks, where running every rank costs what a
      // fold saves, is that taken; below it the run is exact or in full.
      bool uneven = false;
      if (!scheduleMovesAlong(schedule, op, algorithm, symmetry, 0)) {
        found.why = unlike;
        if (schedule.ranks() <= kLargestGroupChecked ||
            !scheduleMovesAlong(schedule, op, algorithm, symmetry, elemSize))
          continue;
        uneven = true;
      }
      found.symmetry = std::move(symmetry);
      found.channelFold = std::move(*fold);
      found.why.clear();
      found.unevenBlocks = uneven;
      return found;
    }
  }
  return found;
}

} // namespace collsim
