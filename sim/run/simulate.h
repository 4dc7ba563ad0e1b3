// One simulated collective: build the schedule, check it, time it.
#pragma once

#include <optional>
#include <string>

#include "algorithms/core/dtype.h"
#include "algorithms/core/registry.h"
#include "sim/executor/schedule_executor.h"
#include "sim/run/library_model.h"
#include "sim/run/work_estimate.h"

namespace collsim {

class ScheduleCache;

class TraceRecorder;

struct CollectiveRun {
  Collective op;
  std::string algorithm;
  int ranks;
  DataType dtype;
  std::uint64_t count;
  Bytes bytes;
  ExecutionResult execution;
  bool symbolicallyChecked = false; // the schedule passed the checker before this run
  std::optional<Protocol> protocol; // the library's protocol that ran (none when ideal)
  int channels = 1;                 // channels it ran as
  std::uint64_t simulatedEvents = 0; // events actually simulated (every protocol tried, before extending loops): its cost
  int simulatedRanks = 0;            // ranks that ran: all, or a symmetry's representatives (collective_symmetry.h)
  std::string symmetry;              // the symmetry it ran under, or why none

  double timeUs() const { return toMicroseconds(execution.finish); }
  // nccl-tests: algbw = bytes / time, busbw = algbw * factor; GB/s = 1e9 B/s.
  double algbwGBps() const;
  double busbwGBps() const;
};

struct RunRequest {
  Collective op;
  const AlgorithmEntry* algorithm;
  DataType dtype;
  Bytes bytes;        // rounded down to whole elements
  Bytes segment;      // network segment size
  bool verify = true; // symbolic check before timing
  int root = 0;       // broadcast and reduce
  Bytes loopBytes = 0; // > 0: data larger than this runs in loops of it, one after another
  Fidelity fidelity = Fidelity::Fast; // packet: the RoCE packet-level model
  std::uint64_t seed = 1;             // jitter draws
  RoceModel roce = defaultRoceModel(); // the NICs and switches (MTU framing at either fidelity)
  int channels = 1; // > 1: the algorithm as that many channels (algorithms/core/channels.h)
  LibraryModel library = {}; // ideal: the algorithm as it is; else protocols, chunk loops, channels per size
  std::string studyPoint = {}; // its point in a study ("cluster.servers=8"), named in its trace
  // Runs that repeat the same schedules share them here (schedule_cache.h); none: each builds its own.
  ScheduleCache* schedules = nullptr;
  bool symmetry = true; // simulation.symmetry: alike servers run once for all (collective_symmetry.h)
};

// Throws std::runtime_error if the checker rejects the schedule. With a
// library, runs each candidate protocol (those whose bandwidth bound could
// still beat the fastest so far) and returns the fastest.
CollectiveRun simulateCollective(const Cluster& cluster, const RunRequest& request,
                                 TraceRecorder* trace = nullptr);

// The work of simulateCollective(cluster, request), from the shapes it
// runs (under a library: every candidate protocol's channels and chunk
// loops, as many loops as it simulates), not from the bare algorithm.
WorkEstimate estimateCollectiveRun(const CollectiveEstimator& estimate, const Cluster& cluster,
                                   const RunRequest& request);

// Checks the algorithm's schedule for `op` on `ranks` ranks with a small
// element count of the same shape (not divisible by the rank count), so the
// check costs little even when the timed buffer is large. Throws on failure.
// Returns false, checking nothing, above kMaxCheckedRanks (callers say so).
bool verifyAlgorithm(const AlgorithmEntry& algorithm, Collective op, int ranks, std::uint32_t elemSize,
                     int devicesPerServer = 0);
// Contributor sets cost ranks^2 x elements bits: beyond this the check is left
// to the test suite, which sweeps every algorithm's shapes.
inline constexpr int kMaxCheckedRanks = 256;

// The collective's rank layout on a cluster: its ranks and devices per server.
CollectiveSpec layoutOf(const Cluster& cluster, Collective op);

} // namespace collsim
