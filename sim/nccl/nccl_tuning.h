// NCCL's own cost model, as data per version: how NCCL's tuner rates each
// algorithm and protocol for a collective and picks the one it predicts
// fastest (src/graph/tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime;
// src/enqueue.cc takes the smallest time). collsim does not time a run with
// it: `compare` and `calibrate` use it to choose, size by size, what NCCL
// would run, and then simulate that choice.
//
// The model: each algorithm x protocol has a latency and a bandwidth, and
// takes latency + bytes / bandwidth (trees scaled by a correction factor
// per size; a ring under Simple across nodes with a plateau factor on its
// latency). Its inputs are NCCL's topology search's figures (channels and
// bandwidth per channel inside and between nodes), the GPU generation and
// the node and rank counts. The tables changed between releases; collsim
// keeps eight families, each as the source of its first and last release
// has it (NVIDIA/nccl: the 2.8.3-1 ... 2.15.5-1 release commits, tags
// v2.18.6-1 ... v2.27.7-1):
//   2.8-2.9      no NVLS; base latencies 4.4 (tree) and 3.6 / 10 / 8.4 us
//                (ring LL / LL128 / Simple); the tree's Simple step 28 us,
//                the ring's 9.6 over the network; LL's steps inside a node
//                1.8x across nodes; Ampere's bus at most 235 GB/s; LL128
//                at most 16.9 GB/s a channel in an AllReduce (one figure
//                per collective); the ring's Simple plateau 1.9x from
//                ranks / 16 x 64 KiB; no proxy overhead per step
//   2.10-2.11    as 2.8, but LL128 at most 20 GB/s a channel, the tree's
//                Ampere ceilings 24 / 23.6 / 17.8, its LL128 at 120/128
//   2.12-2.13    the ring's Simple step 28 us over the network; a ring
//                crosses nodes 2 nodes times
//   2.14-2.16    the ring's Simple step 9.6 us again; from 2.15 Hopper
//                takes Ampere's rows and runs LL128 (before, Volta's, and
//                no LL128)
//   2.18         NVLS base latency 23 us; the tree's Simple step 4 / 6 /
//                14 us (NVLink / PCI / network); ring LL at a quarter of
//                the links; NVLS tree's ratio 0.7 nodes / 2 (nodes - 1)
//   2.19-2.21    the tree's Simple step 28 us everywhere; NVLS and its tree
//                23 us over NVLink, 5/6 of their links' bandwidth
//   2.22         NVLS 25 us; LL on Hopper up to 141 / 45 / 35 GB/s; ring LL
//                at half the links
//   2.23-2.27    the tree's Simple: base 8.4 us, 4 us a step (14 over the
//                network); one GPU a node pays the tree's network latency;
//                a ring crosses nodes 2 (nodes - 1) times
// 2.17 (NVLS's first tables, not modelled) is rated as 2.18, releases
// before 2.8 as 2.8, and those after 2.27 (a new model) as 2.27; the rule
// line says so. A network plugin's reported latency (2.12 on) is not
// modelled: collsim's network figures stand for it.
#pragma once

#include <array>
#include <optional>
#include <string>

#include "sim/core/protocol.h"
#include "sim/core/units.h"

namespace collsim {

enum class NcclColl { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce };
// In NCCL's order (src/include/device.h): on a tie the first wins.
enum class NcclAlgo { Tree, Ring, Nvls, NvlsTree };
inline constexpr int kNcclAlgos = 4;
const char* ncclAlgoName(NcclAlgo a);   // as NCCL_ALGO spells it: Tree, Ring, NVLS, NVLSTree

// What NCCL's topology search found, per algorithm's graph.
struct NcclGraph {
  int channels = 1;
  double bwIntra = 0, bwInter = 0; // GB/s per channel, inside a node and between nodes
};

struct NcclTuningInput {
  int minor = 0;             // NCCL 2.x's x; 0: the newest modelled (2.27)
  int nodes = 1, ranks = 1;
  int computeCapability = 80; // 70 Volta, 80 Ampere, 90 Hopper
  bool nvlinkInside = true;   // a node's GPUs on NVLink (else PCI)
  bool amdCpu = false;        // NCCL's CPU vendor: LL's ceilings across nodes, the network's post overhead
  NcclGraph ring, tree, nvls;
};

struct NcclCost {
  double latencyUs = 0;
  double bandwidthGBs = 0; // algorithm bandwidth; 0: the model does not rate it
};

class NcclTuning {
public:
  // The model of `coll`: AllReduce rates every algorithm, the others the
  // ring alone (as collsim runs them under NCCL).
  NcclTuning(const NcclTuningInput& in, NcclColl coll = NcclColl::AllReduce);

  const NcclCost& cost(NcclAlgo a, Protocol p) const { return cost_[int(a)][int(p)]; }
  // latency + bytes / bandwidth as NCCL computes it; nullopt when unrated.
  std::optional<double> timeUs(NcclAlgo a, Protocol p, Bytes bytes) const;
  // LL128 by default only with NVLink inside and a GPU generation NCCL
  // tested it on (Volta, Ampere, Hopper): otherwise "silent data corruption".
  bool ll128Enabled() const { return ll128_; }
  // The rated pair of least time among those `allowed` (NCCL's loop:
  // algorithms, then protocols, in order; a later one wins only when faster).
  template <typename Allowed>
  std::optional<std::pair<NcclAlgo, Protocol>> pick(Bytes bytes, Allowed allowed) const {
    std::optional<std::pair<NcclAlgo, Protocol>> best;
    double bestUs = 0;
    for (int a = 0; a < kNcclAlgos; ++a)
      for (int p = 0; p < kProtocols; ++p) {
        if (!allowed(NcclAlgo(a), Protocol(p))) continue;
        std::optional<double> us = timeUs(NcclAlgo(a), Protocol(p), bytes);
        if (us && (!best || *us < bestUs)) best = {NcclAlgo(a), Protocol(p)}, bestUs = *us;
      }
    return best;
  }
  // "2.23-2.27": the family whose tables rate this run.
  const std::string& family() const { return family_; }
  // Why the family differs from the version asked ("" when it is its own).
  const std::string& familyNote() const { return familyNote_; }

private:
  std::array<std::array<NcclCost, kProtocols>, kNcclAlgos> cost_{};
  std::string family_, familyNote_;
  int nodes_ = 1, ranks_ = 1, channels_ = 1, computeCapability_ = 80;
  bool allReduce_ = true, ll128_ = true;
  bool legacy_ = false;       // a release before 2.18's tables
  bool firstTreeRow_ = false; // 2.8-2.9's LL128 tree correction and ceiling
};

} // namespace collsim
