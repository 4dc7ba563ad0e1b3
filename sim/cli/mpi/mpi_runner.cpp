#include "sim/cli/mpi/mpi_runner.h"

#include <algorithm>
#include <numeric>
#include <thread>
#include <vector>

#include <sched.h>

#include "algorithms/transports/mpi/mpi_transport.h"
#include "algorithms/transports/rank_streams.h"
#include "algorithms/transports/reference_data.h"

namespace collsim {

MpiRunner::MpiRunner(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

int MpiRunner::hostLayout() const {
  MPI_Comm host;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
  int local = 0, localRank = 0;
  MPI_Comm_size(host, &local);
  MPI_Comm_rank(host, &localRank);
  MPI_Comm_free(&host);
  // Consecutive placement: my rank / local size must give my host's first rank.
  int ok = (local > 0 && rank_ % local == localRank) ? 1 : 0, minLocal = local, maxLocal = local, allOk = 0;
  MPI_Allreduce(MPI_IN_PLACE, &minLocal, 1, MPI_INT, MPI_MIN, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &maxLocal, 1, MPI_INT, MPI_MAX, comm_);
  MPI_Allreduce(&ok, &allOk, 1, MPI_INT, MPI_MIN, comm_);
  if (maxLocal == size_) return 0;
  return (minLocal == maxLocal && allOk) ? local : 0;
}

std::string MpiRunner::oversubscription() const {
  MPI_Comm host;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
  int local = 0;
  MPI_Comm_size(host, &local);
  // The host's cores: those any of its ranks may run on (mpirun may bind
  // each rank to one core of its own).
  cpu_set_t usable;
  CPU_ZERO(&usable);
  if (sched_getaffinity(0, sizeof usable, &usable) != 0) CPU_ZERO(&usable);
  MPI_Allreduce(MPI_IN_PLACE, &usable, int(sizeof usable / sizeof(unsigned long)), MPI_UNSIGNED_LONG, MPI_BOR, host);
  MPI_Comm_free(&host);
  int cores = CPU_COUNT(&usable);
  if (cores <= 0) cores = int(std::max(1u, std::thread::hardware_concurrency()));
  // The most crowded host, as ranks per core (x1000, to reduce as integers), and its figures.
  long crowding[3] = {long(local) * 1000 / cores, local, cores};
  std::vector<long> all(std::size_t(3 * size_));
  MPI_Allgather(crowding, 3, MPI_LONG, all.data(), 3, MPI_LONG, comm_);
  std::size_t worst = 0;
  for (std::size_t i = 0; i < all.size(); i += 3)
    if (all[i] > all[worst]) worst = i;
  if (all[worst] <= 1000) return "";
  return "warning: " + std::to_string(all[worst + 1]) + " ranks share a host with " + std::to_string(all[worst + 2]) +
         " cores: ranks wait for a core, so measured times say more about the scheduler than the algorithm";
}

void MpiRunner::once(const Schedule& schedule, std::byte* buffer, const RunOptions& options) {
  std::uint64_t op = operations_++;
  runRankStreams(schedule, buffer, options, [&](int stream) {
    return std::make_unique<MpiTransport>(comm_, MpiTransport::tagFor(op, stream));
  });
}

MpiRunResult MpiRunner::run(const AlgorithmEntry& algo, const CollectiveSpec& spec, DataType type, ReduceOp op,
                            int warmup, int iterations, std::chrono::milliseconds timeout) {
  SchedulePtr schedule = buildSchedule(algo, spec);
  RunOptions options{type, op, timeout};
  ReferenceData reference(spec, type, op);
  std::vector<std::byte> buffer(spec.bufferBytes());

  MpiRunResult result;
  reference.fill(rank_, buffer.data());
  once(*schedule, buffer.data(), options);
  std::uint64_t wrong = reference.countWrong(rank_, buffer.data(), &result.firstWrong);
  MPI_Allreduce(&wrong, &result.wrong, 1, MPI_UINT64_T, MPI_SUM, comm_);

  if (iterations > 0) {
    for (int i = 0; i < warmup; ++i) once(*schedule, buffer.data(), options);
    MPI_Barrier(comm_);
    std::vector<double> times(std::size_t(iterations), 0.0);
    double start = MPI_Wtime();
    for (double& t : times) {
      once(*schedule, buffer.data(), options);
      double end = MPI_Wtime();
      t = end - start;
      start = end;
    }
    MPI_Allreduce(MPI_IN_PLACE, times.data(), iterations, MPI_DOUBLE, MPI_MAX, comm_);
    result.minSeconds = *std::min_element(times.begin(), times.end());
    result.maxSeconds = *std::max_element(times.begin(), times.end());
    result.seconds = std::accumulate(times.begin(), times.end(), 0.0) / iterations;
  }
  return result;
}

} // namespace collsim
