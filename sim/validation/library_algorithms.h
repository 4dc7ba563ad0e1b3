// `--algo library`: the algorithms a cluster's collective library chooses
// among, size by size, as compare and calibrate predict with by default.
//
// - NCCL picks, per size, the algorithm and protocol its cost model
//   predicts fastest (src/graph/tuning.cc): collsim runs its candidates and
//   keeps the fastest, as it does for the protocols (library_model.h).
//   Candidates: those NCCL enables on the cluster (sim/nccl/nccl_algorithms.h:
//   for AllReduce the ring, the double binary tree across servers, with a
//   reducing NVSwitch NVLS on one server, NVLSTree across servers, and NVLS
//   across them only with SHARP in the fabric). Other collectives: the ring.
// - HCCL picks by its rules (the selector's, sim/selector): one algorithm
//   per size, the one they name.
// - The ideal library: the ring.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/config/cluster_config.h"
#include "sim/selector/rules.h"

namespace collsim {

constexpr const char* kLibraryAlgorithm = "library";

// NCCL's candidates for `op` on the cluster, as collsim names them.
std::vector<std::string> ncclAlgorithms(Collective op, const Cluster& cluster);

// Per size, the algorithms to run (the fastest wins): NCCL's candidates,
// HCCL's rules' one pick (`rules` needed), or the ring.
std::function<std::vector<std::string>(Bytes)> libraryAlgorithms(Collective op, const ClusterSetup& setup,
                                                                 const SelectorRules* rules);

} // namespace collsim
