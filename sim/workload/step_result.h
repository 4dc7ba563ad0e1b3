// What a simulated training step gives (StepResult), what it is asked
// (StepOptions): shared by the step model (parallel_step.h), its callers
// (step_simulation.h) and the reports.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/network/network.h"
#include "sim/workload/layer_compute.h"
#include "sim/workload/memory_model.h"
#include "sim/workload/training.h"

namespace collsim {

class TraceRecorder;

struct BucketTiming {
  Bytes bytes = 0;
  std::string algorithm;
  Time ready = 0; // its gradients are all there (and the pipeline has room)
  Time start = 0; // its AllReduce begins (after the copy into the bucket buffer)
  Time end = 0;   // its AllReduce has finished on every rank
};

// Where the slowest device's step went: its own
// compute, the time it waited in TP collectives, in EP AllToAlls, for pipeline transfers,
// idle in the pipeline's bubble (waiting for a neighbour stage to get
// there), for the DP gradients after backward and in ZeRO's AllGather, the
// optimizer, and for the key-value blocks of the CP ring. They add up to
// the step.
struct StepBreakdown {
  Time compute = 0, tensorParallel = 0, expertParallel = 0, pipeline = 0, bubble = 0, dataParallel = 0, optimizer = 0;
  Time contextParallel = 0;
};

struct StepResult {
  int ranks = 1;
  int replicas = 0; // copies of the model training on different samples (0: ranks)
  std::optional<ParallelLayout> layout;
  StepBreakdown breakdown;
  int microBatch = 1;
  int accumulation = 1;
  Time iteration = 0;     // one optimizer step, on the slowest rank
  Time forward = 0, backward = 0, optimizer = 0; // per micro-batch; optimizer once
  Time compute = 0;       // all compute of the step on one device
  // That compute by kind of kernel (layer_compute.h): every pass of the
  // device's layers over the step's micro-batches, and the optimizer; the
  // kernels' own times, before collectives running beside them slow them.
  ClassSeconds computeClasses;
  Time communication = 0; // time during which some AllReduce was running
  Time exposed = 0;       // the device waited for communication: iteration - compute
  std::vector<BucketTiming> buckets;
  MemoryBreakdown memory;
  Bytes deviceMemory = 0; // what the device has
  std::uint64_t events = 0;
  NetworkMetrics network;
  Bytes bytesSent = 0; // by all ranks, over the whole step
  // Under a layout: the ranks simulated (fewer than `ranks` when a few
  // replicas stood for all: replica_symmetry.h), and what the symmetry was
  // or why there was none.
  int simulatedRanks = 0;
  std::string symmetry;

  Time meanAllReduce() const;
  double communicationShare() const { return iteration ? double(communication) / double(iteration) : 0; }
  double exposedShare() const { return iteration ? double(exposed) / double(iteration) : 0; }
  double samplesPerSecond() const; // over all devices
  // The model's useful work (forward + backward = 3 x forward FLOPs, as MFU
  // counts it: recomputation is not useful work) and the tokens of a sample;
  // 0 when the model gives times, not FLOPs, or no sequence.
  double flopsPerSample = 0;
  double devicePeakFlops = 0;
  std::uint64_t tokensPerSample = 0;
  double tokensPerSecond() const { return samplesPerSecond() * double(tokensPerSample); }
  // Model FLOPs utilization: the useful FLOPs of a step over what the devices'
  // peak could do in its time. 0 when unknown.
  double mfu() const;
  // Against one device running the same micro-batches with no communication.
  double scalingEfficiency() const { return iteration ? double(compute) / double(iteration) : 0; }
};

struct StepOptions {
  std::string algorithm = "ring"; // every bucket's AllReduce; "auto": pickAlgorithm's per bucket
  std::function<std::string(Bytes)> pickAlgorithm; // for "auto": a bucket's size -> its algorithm
  Bytes segment = Bytes(1) << 20;
  Fidelity fidelity = Fidelity::Fast;
  std::uint64_t seed = 1;
  RoceModel roce = defaultRoceModel();
  Bytes hcclBufferSize = kHcclDefaultBufferSize;
  // Collectives larger than hcclBufferSize run in loops of it (HCCL's CCL
  // buffer); NCCL's have no such buffer (it still holds device memory).
  bool bufferLoops = true;
  // Device memory a communicator's buffers hold (communicatorBufferBytes:
  // HCCL's two of HCCL_BUFFSIZE, or NCCL's per channel and protocol).
  Bytes communicatorBuffer = 2 * kHcclDefaultBufferSize;
  bool verify = true;            // check each algorithm with the symbolic checker first
  TraceRecorder* trace = nullptr;
  // The share of a device's compute that its running collectives hold
  // (collectiveComputeShare: NCCL's channels' SMs); computation beside them slows by it.
  double collectiveComputeShare = 0;
  // Simulate a few DP replicas for all where the cluster and the step are
  // symmetric (replica_symmetry.h; `simulation.symmetry`).
  bool symmetry = true;
};

// Sum of the lengths of possibly overlapping intervals (communication time).
Time unionLength(std::vector<std::pair<Time, Time>> spans);

} // namespace collsim
