// The layouts `collsim plan` considers for one model on one cluster: every
// combination of the candidate degrees (tp, cp, pp, ep), micro-batch
// sizes, ZeRO stages, pipeline schedules (and virtual stages) and
// recomputation, each either kept for simulation or pruned with the reason
// (it does not divide the model or the cluster, the global batch, or it
// does not fit the device's memory, which is known before simulating).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/workload/memory_model.h"
#include "sim/workload/training.h"
#include "topologies/cluster.h"

namespace collsim {

struct PlanSpace {
  std::uint64_t globalBatch = 0; // samples per optimizer step
  // Candidates; empty: every divisor of the heads that divides a server's
  // devices (tp), every divisor of the layers (pp), the model's micro-batch.
  std::vector<int> tp, pp, microBatch;
  // Expert parallelism; empty: 1, or for a model with experts every divisor of them.
  std::vector<int> ep;
  double expertImbalance = 1;
  std::vector<int> zero{0, 1, 2, 3};
  std::vector<PipelineKind> schedules{PipelineKind::OneFOneB};
  std::vector<int> virtualStages{2}; // for the interleaved schedule
  std::vector<int> cp{1};            // context parallelism
  // Activation recomputation; empty: the model's own.
  std::vector<Recomputation> recomputation;
  bool sequenceParallel = true; // under tp > 1
  bool tpAcrossServers = false;
};

struct LayoutCandidate {
  ParallelLayout layout;
  int microBatch = 1;
  std::optional<Recomputation> recomputation; // the model's own when none
  MemoryBreakdown memory;
  std::string pruned; // why it is not simulated; empty when it is
};

// `training` gives the model, bucket and overlap; its own layout is ignored.
std::vector<LayoutCandidate> enumerateLayouts(const Cluster& cluster, const TrainingSpec& training,
                                              const PlanSpace& space, Bytes communicatorBuffer);

// The training spec that runs `candidate`.
TrainingSpec trainingFor(const TrainingSpec& base, const LayoutCandidate& candidate);

} // namespace collsim
