// The collsim-mpi subcommands (perf, selftest), run on every rank.
#pragma once

#include <ostream>

namespace collsim {

// Returns the exit status: 0, 1 (wrong results), 2 (bad input) or 3 (a
// transport failure: the caller aborts all ranks).
int runMpiCli(int argc, char** argv, std::ostream& out, std::ostream& err);

// Where ranks other than 0 print.
std::ostream& nullStream();

} // namespace collsim
