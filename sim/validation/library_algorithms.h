// `--algo library`: the algorithms a cluster's collective library chooses
// among, size by size, as compare and calibrate predict with by default.
//
// - NCCL picks, per size, the algorithm and protocol its cost model
//   predicts fastest (src/graph/tuning.cc): collsim rates its candidates
//   with that model (sim/nccl/nccl_tuning.h, the cluster's library.version)
//   and runs the one it picks (NcclPicker below).
//   Candidates: those NCCL enables on the cluster (sim/nccl/nccl_algorithms.h:
//   for AllReduce the ring, the double binary tree across servers, with a
//   reducing NVSwitch NVLS on one server, NVLSTree across servers, and NVLS
//   across them only with SHARP in the fabric). Other collectives: the ring.
// - HCCL picks by its rules (the selector's, sim/selector): one algorithm
//   per size, the one they name.
// - The ideal library: the ring.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/config/cluster_config.h"
#include "sim/nccl/nccl_algorithms.h"
#include "sim/nccl/nccl_tuning.h"
#include "sim/selector/rules.h"

namespace collsim {

constexpr const char* kLibraryAlgorithm = "library";

// NCCL's candidates for `op` on the cluster, as collsim names them.
std::vector<std::string> ncclAlgorithms(Collective op, const Cluster& cluster);

// Per size, the algorithms to run (the fastest wins): NCCL's candidates,
// HCCL's rules' one pick (`rules` needed), or the ring.
std::function<std::vector<std::string>(Bytes)> libraryAlgorithms(Collective op, const ClusterSetup& setup,
                                                                 const SelectorRules* rules);

// NCCL's tuning model's inputs from a cluster file: its topology search's
// figures as the links give them (each channel an equal share of a GPU's
// links inside the node, and of the node's NICs between nodes, which each
// channel crosses once; NCCL's rings and trees run at one speed inside and
// out), the GPU generation from the device's name, the release from
// library.version.
// `channels` > 0: as many channels (compare --channels) in place of the library's.
NcclTuningInput ncclTuningInputOf(const ClusterSetup& setup, int channels = 0);

// What NCCL's tuner runs, size by size: of the algorithms collsim would run
// (collsim's names) and the library's protocols for the size, the pair the
// model rates fastest. An algorithm NCCL does not have is not rated (the
// simulation picks its protocol).
class NcclPicker {
public:
  NcclPicker(Collective op, const ClusterSetup& setup, int channels = 0);
  struct Pick {
    std::string algorithm; // "": none of those asked is NCCL's
    std::optional<Protocol> protocol;
  };
  Pick pick(const std::vector<std::string>& algorithms, Bytes bytes) const;
  // The protocol the model rates fastest for one algorithm (none when it is not NCCL's).
  std::optional<Protocol> protocolFor(const std::string& algorithm, Bytes bytes) const;
  // "NCCL 2.23-2.27's tuning model (src/graph/tuning.cc) picks ... on ...".
  std::string rule() const;

private:
  std::optional<NcclAlgo> ncclAlgoOf(const std::string& collsimName) const;
  bool allowed(NcclAlgo a, Protocol p, Bytes bytes) const;
  LibraryModel library_;
  NcclTuningInput input_;
  NcclTuning tuning_;
  std::vector<NcclAlgorithm> algorithms_; // NCCL's, as collsim names them
};

} // namespace collsim
