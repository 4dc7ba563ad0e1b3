#include "sim/nccl/nccl_tuning.h"

#include <algorithm>

namespace collsim {
namespace {

// V2_8 to V2_14 are the releases before 2.18's rewrite of the tables
// ("legacy" below).
enum class Family { V2_8, V2_10, V2_12, V2_14, V2_18, V2_19, V2_22, V2_23 };
bool legacy(Family f) { return f < Family::V2_18; }
constexpr int kNvlink = 0, kPci = 1, kNet = 2;
constexpr int kTree = int(NcclAlgo::Tree), kRing = int(NcclAlgo::Ring), kNvls = int(NcclAlgo::Nvls),
              kNvlsTree = int(NcclAlgo::NvlsTree);
constexpr int kLL = int(Protocol::LL), kLL128 = int(Protocol::LL128), kSimple = int(Protocol::Simple);

Family familyOf(int minor, std::string& name, std::string& note) {
  Family f = minor == 0 || minor >= 23 ? Family::V2_23
             : minor >= 22             ? Family::V2_22
             : minor >= 19             ? Family::V2_19
             : minor >= 17             ? Family::V2_18
             : minor >= 14             ? Family::V2_14
             : minor >= 12             ? Family::V2_12
             : minor >= 10             ? Family::V2_10
                                       : Family::V2_8;
  const char* names[] = {"2.8-2.9", "2.10-2.11", "2.12-2.13", "2.14-2.16", "2.18", "2.19-2.21", "2.22", "2.23-2.27"};
  name = names[int(f)];
  const std::string release = "NCCL 2." + std::to_string(minor);
  if (minor > 0 && minor < 8) note = release + " predates the models here: rated with 2.8's";
  if (minor == 17) note = release + "'s tables (its first NVLS) are not modelled: rated with 2.18's";
  if (minor > 27) note = release + " models otherwise: rated with 2.27's";
  return f;
}

// NCCL's floor of log2 (0 for 0 and 1).
int log2i(Bytes n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

struct Tables {
  double baseLat[kNcclAlgos][kProtocols];
  double hwLat[3][kNcclAlgos][kProtocols]; // NVLink, PCI, network
};

// 2.8-2.16's tables: no NVLS yet, the tree's Simple 28 us a step
// everywhere, the ring's 9.6 us across the network (28 in 2.12-2.13).
Tables legacyTables(Family f) {
  const double ringSimpleNet = f == Family::V2_12 ? 28 : 9.6;
  return {{{4.4, 4.4, 0}, {3.6, 10.0, 8.4}, {0, 0, 0}, {0, 0, 0}},
          {{{.52, 1.25, 28}, {.47, 1.9, 3.4}, {0, 0, 0}, {0, 0, 0}},
           {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}},
           {{5.0, 8.5, 28}, {2.7, 4.0, ringSimpleNet}, {0, 0, 0}, {0, 0, 0}}}};
}

// src/graph/tuning.cc's baseLat and hwLat (us) by family.
Tables tablesOf(Family f) {
  if (legacy(f)) return legacyTables(f);
  const bool v18 = f == Family::V2_18, v23 = f == Family::V2_23;
  const double treeSimpleNvlink = v18 || v23 ? 4 : 28, treeSimplePci = v18 ? 6 : v23 ? 4 : 28;
  const double treeSimpleNet = v18 || v23 ? 14 : 28;
  const double nvlsNvlink = v18 ? 0 : f == Family::V2_19 ? 23 : 25;
  Tables t{};
  double base[kNcclAlgos][kProtocols] = {{6.8, 14.0, v23 ? 8.4 : 0}, {6.6, 14.0, 8.4}, {0, 0, v18 ? 23.0 : 0},
                                         {0, 0, v18 ? 23.0 : 0}};
  double hw[3][kNcclAlgos][kProtocols] = {
      {{.6, 1.25, treeSimpleNvlink}, {.6, 1.9, 3.4}, {0, 0, nvlsNvlink}, {0, 0, nvlsNvlink}},
      {{1.0, 1.9, treeSimplePci}, {1.0, 2.5, 5.7}, {0, 0, 0}, {0, 0, 0}},
      {{5.0, 8.5, treeSimpleNet}, {2.7, 4.0, 14.0}, {0, 0, 18}, {0, 0, v18 ? 19.0 : 14}}};
  std::copy(&base[0][0], &base[0][0] + kNcclAlgos * kProtocols, &t.baseLat[0][0]);
  std::copy(&hw[0][0][0], &hw[0][0][0] + 3 * kNcclAlgos * kProtocols, &t.hwLat[0][0][0]);
  return t;
}

// Per GPU generation (Volta, Ampere, Hopper) and node count (one, two, more).
// LL's bus ceiling: one node by GPU, more by CPU (Intel's row is Volta's,
// AMD's Ampere's); Hopper's rose in 2.22.
double llMaxBw(Family f, int generation, int nodes, bool amd) {
  const double table[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
  const double hopper22[3] = {141.0, 45.0, 35.0};
  int row = nodes == 1 ? generation : amd ? 1 : 0, column = nodes <= 2 ? nodes - 1 : 2;
  if (row == 2 && f >= Family::V2_22) return hopper22[column];
  return table[row][column];
}
// LL128's ceiling per channel: in 2.8-2.9 one per collective, the same for
// every generation (ll128MaxBwPerCh), in 2.10-2.16 20 GB/s, from 2.17 one
// per generation.
double perChannelLL128(Family f, NcclColl coll, int generation, int nodes, bool tree) {
  if (f == Family::V2_8) {
    switch (coll) {
    case NcclColl::Broadcast: return 18.8;
    case NcclColl::Reduce: return 12.0;
    case NcclColl::AllGather: return 18.3;
    case NcclColl::ReduceScatter: return 15.2;
    case NcclColl::AllReduce: return 16.9;
    }
  }
  if (generation != 2 || legacy(f)) return 20.0;
  return tree && nodes > 2 ? 29.0 : 36.7;
}
// The tree's ceiling per channel: Ampere's row was lower in 2.8-2.9.
double perChannelTree(Family f, int generation, int nodes) {
  const double table[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
  const double ampere2_8[3] = {24.0, 22.5, 16.0};
  const int column = nodes <= 2 ? nodes - 1 : 2;
  if (f == Family::V2_8 && generation == 1) return ampere2_8[column];
  return table[generation][column];
}

// Trees stray from the model at mid sizes: NCCL's static correction of their
// bandwidth per power of two from 64 B to 256 MiB.
constexpr double kTreeCorrection[kProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
// 2.8-2.9's row for LL128 (LL's and Simple's are the same as later).
constexpr double kTreeCorrectionLL128_2_8[23] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
                                                 .6,  .5,  .6,  .6,  .7,  .7, .8, .9, .9, .92, .92};

} // namespace

const char* ncclAlgoName(NcclAlgo a) {
  switch (a) {
  case NcclAlgo::Tree: return "Tree";
  case NcclAlgo::Ring: return "Ring";
  case NcclAlgo::Nvls: return "NVLS";
  case NcclAlgo::NvlsTree: return "NVLSTree";
  }
  return "?";
}

NcclTuning::NcclTuning(const NcclTuningInput& in, NcclColl coll) {
  const Family f = familyOf(in.minor, family_, familyNote_);
  const Tables t = tablesOf(f);
  nodes_ = std::max(1, in.nodes);
  ranks_ = std::max(2, in.ranks);
  channels_ = std::max(1, in.ring.channels);
  computeCapability_ = in.computeCapability;
  allReduce_ = coll == NcclColl::AllReduce;
  legacy_ = legacy(f);
  firstTreeRow_ = f == Family::V2_8;
  const int nodes = nodes_, ranks = ranks_, cc = in.computeCapability;
  int generation = cc >= 90 ? 2 : cc >= 80 ? 1 : 0;
  // Before 2.15 NCCL knows Ampere (8.0) and the rest, which take Volta's
  // rows; 2.15-2.16 give Hopper Ampere's. LL128 on the generations NCCL
  // tested it on (Hopper from 2.15).
  const bool knowsHopper = !legacy_ || in.minor >= 15;
  if (legacy_ && generation == 2) generation = knowsHopper ? 1 : 0;
  ll128_ = in.nvlinkInside && (cc == 70 || cc == 80 || (cc == 90 && knowsHopper));
  const double llMax = llMaxBw(f, generation, nodes, in.amdCpu);
  const double ppn = double(ranks) / nodes;
  const int intraHw = in.nvlinkInside ? kNvlink : kPci, hw = nodes == 1 ? intraHw : kNet;
  const bool rootedRing = coll == NcclColl::Broadcast || coll == NcclColl::Reduce;
  const int nsteps = allReduce_ ? 2 * (ranks - 1) : rootedRing ? ranks : ranks - 1;
  // A ring's steps that cross nodes: 2 (nodes - 1) in an AllReduce in
  // 2.8-2.11 and from 2.23, 2 nodes in between.
  int interSteps = 0;
  if (f == Family::V2_23 || f <= Family::V2_10) interSteps = nodes == 1 ? 0 : allReduce_ ? 2 * (nodes - 1) : nodes - 1;
  else interSteps = allReduce_ ? (nodes > 1 ? 2 * nodes : 0) : rootedRing ? nodes : nodes - 1;

  for (int a = 0; a < kNcclAlgos; ++a) {
    if (!allReduce_ && a != kRing) continue;
    if (a == kNvlsTree && nodes == 1) continue; // NCCL turns it off on one node
    if ((a == kNvls || a == kNvlsTree) && legacy_) continue; // NVLS came with 2.17
    const NcclGraph& g = a == kTree ? in.tree : a == kRing ? in.ring : in.nvls;
    for (int p = 0; p < kProtocols; ++p) {
      if ((a == kNvls || a == kNvlsTree) && p != kSimple) continue;
      if (p == kLL128 && !ll128_) continue;
      double bw = nodes <= 2 ? g.bwIntra : g.bwInter;
      if (f != Family::V2_18 && a == kNvls) bw = std::min(g.bwIntra, g.bwInter);
      if (f != Family::V2_18 && a == kNvlsTree) bw = std::min(g.bwIntra, nodes <= 2 ? g.bwInter : g.bwInter / 2);
      double busBw = g.channels * bw;
      if (legacy_ && cc == 80) busBw = std::min(busBw, 235.0); // Ampere's ceiling before 2.18
      if (a == kRing && p == kLL) {
        double share = f >= Family::V2_22 ? 0.5 : nodes > 1 || allReduce_ || coll == NcclColl::Reduce ? 0.25 : 1.0 / 3;
        busBw = std::min(llMax, busBw * share);
      }
      if (a == kRing && p == kLL128)
        busBw = std::min(busBw * (f != Family::V2_23 && ppn < 2 ? 0.7 : 0.92), g.channels * perChannelLL128(f, coll, generation, nodes, false));
      if (a == kTree) busBw = std::min(busBw * .92, g.channels * perChannelTree(f, generation, nodes));
      if (a == kTree && p == kLL) busBw = std::min(busBw / 3.8, llMax);
      if (a == kTree && p == kLL128)
        busBw = std::min(busBw * (nodes == 1 ? 7.0 / 9.0 : firstTreeRow_ ? 0.915 : 120.0 / 128.0),
                         g.channels * perChannelLL128(f, coll, generation, nodes, true));
      double ratio = a == kRing ? double(ranks) / nsteps
                     : a == kNvls ? 5.0 / 6.0
                     : a == kNvlsTree ? (f == Family::V2_18 ? 0.7 * nodes / (2.0 * (nodes - 1)) : 5.0 / 6.0)
                                      : 0.5;
      NcclCost& c = cost_[a][p];
      c.bandwidthGBs = busBw * ratio;
      c.latencyUs = t.baseLat[a][p];
      double intraLat = t.hwLat[intraHw][a][p];
      if (legacy_ && nodes > 1 && p == kLL) intraLat *= 1.8; // before 2.18: LL's steps inside a node of a multi-node run
      // From 2.23, one GPU a node pays the tree's network latency.
      double interLat = f == Family::V2_23 && ppn == 1 ? t.hwLat[kNet][kTree][p] : t.hwLat[kNet][a][p];
      if (a == kRing) {
        if (rootedRing) {
          // A pipeline through the ranks; its channels are not the same
          // rings (sameChannels 0): Simple pays the tree's step.
          c.latencyUs += nsteps * (p == kSimple ? t.hwLat[hw][kTree][p] : t.hwLat[hw][a][p]);
        } else {
          // Inter-node rings still launch every step through the network's
          // proxy (from 2.18: getNetOverhead).
          double netOverhead = nodes > 1 && !legacy_ ? (in.amdCpu ? 2.0 : 1.0) * (p == kSimple ? 3 : 1) : 0;
          intraLat = std::max(intraLat, netOverhead);
          c.latencyUs += (nsteps - interSteps) * intraLat + interSteps * interLat;
        }
      } else if (a == kTree) {
        c.latencyUs += 2 * ((ranks / nodes - 1) * intraLat + log2i(Bytes(nodes)) * interLat);
      } else if (a == kNvls) {
        if (f == Family::V2_18) c.latencyUs += nodes > 1 ? t.hwLat[kNet][a][p] : 0;
        else c.latencyUs = intraLat + (nodes > 1 ? interLat : 0);
      } else {
        if (f == Family::V2_18) c.latencyUs += 2 * (nodes - 1) * t.hwLat[kNet][a][p];
        else c.latencyUs += intraLat + 2 * log2i(Bytes(nodes)) * interLat;
      }
    }
  }
}

std::optional<double> NcclTuning::timeUs(NcclAlgo a, Protocol p, Bytes bytes) const {
  const NcclCost& c = cost(a, p);
  if (c.bandwidthGBs <= 0) return std::nullopt;
  double bw = c.bandwidthGBs, lat = c.latencyUs;
  int logSize = log2i(bytes >> 6);
  if (a == NcclAlgo::Tree && allReduce_ && logSize < 23)
    bw *= firstTreeRow_ && p == Protocol::LL128 ? kTreeCorrectionLL128_2_8[logSize] : kTreeCorrection[int(p)][logSize];
  // The plateau of a ring under Simple across nodes: before 2.18 from
  // ranks / 16 x 64 KiB, 1.9 on every GPU.
  if (a == NcclAlgo::Ring && p == Protocol::Simple && nodes_ > 1 && allReduce_) {
    if (legacy_ && bytes * 16 >= Bytes(ranks_) * 65536) lat *= 1.9;
    if (!legacy_ && bytes / Bytes(channels_ * ranks_) >= 64) lat *= computeCapability_ < 80 ? 1.9 : 1.4;
  }
  return lat + double(bytes) / (1000 * bw);
}

} // namespace collsim
