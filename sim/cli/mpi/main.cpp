// collsim-mpi: the same algorithms over MPI across processes and machines.
//
//   mpirun -np 8 build/collsim-mpi perf --op allreduce --algo rhd -b 8 -e 256MiB -f 2
//   mpirun -np 4 build/collsim-mpi selftest
//
// Only rank 0 prints. Exit status: 0 success, 1 wrong results, 2 bad
// input, 3 an internal error or a failed transport, 4 a peer that did not answer within the
// timeout (mpi_commands.h; every rank is aborted with 3 and 4).
#include <mpi.h>

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/cli/mpi/mpi_commands.h"
#include "sim/core/fingerprint.h"

// Every rank must run the same command: ranks started with different
// arguments (an MPMD launch, a stale script on one host) would post
// mismatched operations and hang. Their fingerprints are compared first.
static bool sameArgumentsEverywhere(int argc, char** argv, std::ostream& err) {
  collsim::Fingerprint f;
  for (int i = 1; i < argc; ++i) f.add(argv[i]);
  unsigned long long mine = f.value();
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<unsigned long long> all(rank == 0 ? std::size_t(size) : 0);
  MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  int same = 1;
  if (rank == 0) {
    std::string differing;
    for (int r = 1; r < size; ++r)
      if (all[std::size_t(r)] != mine) differing += (differing.empty() ? "" : ", ") + std::to_string(r);
    if (!differing.empty()) {
      err << "collsim-mpi: error: these ranks were started with other arguments than rank 0: " << differing
          << "; every rank must run the same command\n";
      same = 0;
    }
  }
  MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return same == 1;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::ostream& out = rank == 0 ? std::cout : collsim::nullStream();
  std::ostream& err = rank == 0 ? std::cerr : collsim::nullStream();
  if (provided < MPI_THREAD_MULTIPLE) {
    err << "collsim-mpi: this MPI library does not offer MPI_THREAD_MULTIPLE (needed for multi-stream schedules)\n";
  }
  if (!sameArgumentsEverywhere(argc, argv, err)) {
    MPI_Finalize();
    return 2;
  }
  int status = collsim::runMpiCli(argc, argv, out, err);
  if (status == collsim::kMpiExitInternal || status == collsim::kMpiExitPeerFailed) {
    out.flush();
    err.flush();
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, status); // open requests, peers waiting: nobody can finish cleanly
  }
  MPI_Finalize();
  return status;
}
