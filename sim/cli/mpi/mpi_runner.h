// Runs a collective over MPI on this rank: results checked against the
// reference data, and timed like nccl-tests (warm-up, then the mean of
// several iterations, the slowest rank's time).
#pragma once

#include <mpi.h>

#include <chrono>
#include <string>

#include "algorithms/core/registry.h"
#include "algorithms/transports/schedule_runner.h"

namespace collsim {

struct MpiRunResult {
  std::uint64_t wrong = 0; // over all ranks
  // Each iteration's time is its slowest rank's; their mean, least and most.
  double seconds = 0, minSeconds = 0, maxSeconds = 0;
  std::string firstWrong;  // this rank's first, if any
};

class MpiRunner {
public:
  explicit MpiRunner(MPI_Comm comm);
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Devices per server from the MPI host layout: 0 when all ranks share one
  // host, else the ranks per host (which must be equal and consecutive).
  int hostLayout() const;
  // A warning when some host runs more ranks than it has cores (each then
  // waits for a core, and measured times mean little), else "". Collective.
  std::string oversubscription() const;

  // Checks one run on fresh data; if iterations > 0, also times them.
  MpiRunResult run(const AlgorithmEntry& algo, const CollectiveSpec& spec, DataType type, ReduceOp op, int warmup,
                   int iterations, std::chrono::milliseconds timeout);

private:
  void once(const Schedule& schedule, std::byte* buffer, const RunOptions& options);

  MPI_Comm comm_;
  int rank_, size_;
  std::uint64_t operations_ = 0; // names the MPI tags of each collective
};

} // namespace collsim
