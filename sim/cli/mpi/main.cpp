// collsim-mpi: the same algorithms over MPI across processes and machines.
//
//   mpirun -np 8 build/collsim-mpi perf --op allreduce --algo rhd -b 8 -e 256MiB -f 2
//   mpirun -np 4 build/collsim-mpi selftest
//
// Only rank 0 prints. Exit status: 0 success, 1 wrong results or a
// transport failure, 2 bad input.
#include <mpi.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "sim/cli/mpi/mpi_commands.h"

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
  int status = collsim::runMpiCli(argc, argv, out, err);
  if (status == 1 || status == 3) { // a transport failure leaves requests open: abort everyone
    out.flush();
    err.flush();
    if (status == 3) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status == 3 ? 1 : status;
}
