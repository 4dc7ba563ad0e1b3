// Which AllReduce algorithms NCCL enables on a cluster, and the collsim
// algorithm that runs each: NCCL's rules as data, with their source.
//
// NCCL's tuner (src/graph/tuning.cc, ncclTopoTuneModel's algoEnable; the
// same rules in every release from 2.18.1 to 2.28.3) turns off
//   - NVLSTree on one node (nNodes == 1),
//   - NVLS across nodes unless CollNet (SHARP in the fabric) is there
//     (collNetSupport == 0 && nNodes > 1): NVLS across nodes is NVLS in
//     each server with CollNet between them, collsim's hierpipe:nvls+sharp,
//   - NVLS and NVLSTree without NVLink SHARP (nvlsSupport: an NVSwitch that
//     reduces and multicasts),
// and when NCCL_ALGO leaves nothing enabled, 2.18 and 2.19 fall back to
// Ring and Tree (with a warning), 2.20 on fail the call ("no algorithm/
// protocol available", src/enqueue.cc); collsim refuses it (nccl_env.h).
// Other collectives: the ring (NCCL's trees and NVLS reduce; its AllGather
// and ReduceScatter on NVLS are not modelled here).
#pragma once

#include <string>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

// What NCCL's rules look at.
struct NcclTopology {
  int servers = 1;
  bool serverSwitchReduces = false; // NVLink SHARP (nvlsSupport)
  bool fabricReduces = false;       // SHARP between servers (collNetSupport)
};
NcclTopology ncclTopologyOf(const Cluster& cluster);

// One of NCCL's AllReduce algorithms on a topology.
struct NcclAlgorithm {
  std::string name;    // as NCCL_ALGO spells it: Ring, Tree, NVLS, NVLSTree
  std::string collsim; // the algorithm that runs it; "" when NCCL turns it off here
  std::string off;     // why NCCL turns it off ("" when on)
};

// Ring, Tree, NVLS and NVLSTree on `t`, in that order.
std::vector<NcclAlgorithm> ncclAllReduceAlgorithms(const NcclTopology& t);

// The candidates NCCL's tuner chooses among by default, as collsim names
// them: those enabled, less the tree on one server (inside one node NCCL's
// tree is a chain its model rates below the ring; collsim runs the ring).
std::vector<std::string> ncclDefaultAlgorithms(const NcclTopology& t);

// One line saying which of them NCCL runs on `t` and which it turns off,
// and why: what compare and calibrate print when they pick as NCCL does.
std::string ncclAlgorithmsNote(const NcclTopology& t);

} // namespace collsim
