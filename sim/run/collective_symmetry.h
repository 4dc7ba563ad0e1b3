// The symmetry of a stand-alone collective (#68): on a cluster of alike
// servers, a ring over all ranks runs the same program on every server, its
// peers moved along by a server (s -> s + 1), and recursive halving-doubling
// on a power of two does with s -> s xor 1; so do their channels (each
// visits every server's devices in one order) and hier:A+B with either
// between the servers. One server, or the smallest unit of servers under
// which the schedule moves along and the cluster folds (foldChannels), then
// runs for all, exactly: a training step's replicas fold the same way
// (sim/workload/replica_symmetry.h).
//
// An algorithm that moves along by construction (a rootless ring or
// halving-doubling, hier:A+B with either between the servers) is checked on
// one unit's ranks against their images: every step up to
// kLargestGroupChecked ranks, a spread of steps past it. Where the buffer
// does not split evenly, a block is an element larger on some ranks: up to
// kLargestGroupChecked ranks that runs in full, past it the fold takes the
// blocks as alike and says so. Any other schedule is checked rank by rank up
// to kLargestGroupChecked ranks and runs in full past it. Trees, NVLS trees
// and a broadcast's or reduce's root do not move along: they run in full,
// and the reason is reported.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/network/network.h"
#include "sim/network/rank_symmetry.h"
#include "topologies/cluster.h"

namespace collsim {

struct CollectiveSymmetry {
  std::optional<RankSymmetry> symmetry;
  std::vector<std::uint32_t> channelFold; // rank_symmetry.h
  std::string why;                        // no symmetry: why not
  // Alike only to an element a block (the buffer does not split evenly):
  // then the fold is exact to that element's time a step, not to the
  // picosecond.
  bool unevenBlocks = false;
  // "1 of 256 servers stands for all (s -> s + 1)", or why none.
  std::string text() const;
  int simulatedRanks(int ranks) const { return symmetry ? symmetry->representatives() : ranks; }
};

// Why a run cannot fold whatever its schedule ("" when it may): symmetry
// off, the packet model (its queues and jitter are per port), a trace (it
// shows every rank), a single server.
std::string collectiveFoldRuledOut(const Cluster& cluster, bool symmetry, Fidelity fidelity, bool traced);

// `algorithm`: the name asked for (a library's channels and chunk loops
// keep it), which says what moves along by construction. The schedule's
// sizes alike to the byte, or else to an element of `elemSize` bytes.
CollectiveSymmetry findCollectiveSymmetry(const Cluster& cluster, const Schedule& schedule, Collective op,
                                          const std::string& algorithm, std::uint32_t elemSize);

} // namespace collsim
