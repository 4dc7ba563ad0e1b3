#include "sim/cli/mpi/mpi_runner.h"

#include <vector>

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
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) once(*schedule, buffer.data(), options);
    double mine = (MPI_Wtime() - start) / iterations;
    MPI_Allreduce(&mine, &result.seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  }
  return result;
}

} // namespace collsim
