// The collsim-mpi subcommands (perf, selftest), run on every rank.
#pragma once

#include <ostream>

namespace collsim {

// collsim-mpi's exit statuses past 0 (success), 1 (wrong results) and 2
// (bad input). After these the caller aborts every rank with the status,
// which mpirun passes on: a rank's requests are still open, and a peer may
// be waiting for messages that will never come.
inline constexpr int kMpiExitInternal = 3;   // an internal error or a failed transport
inline constexpr int kMpiExitPeerFailed = 4; // a peer did not answer within the timeout
int runMpiCli(int argc, char** argv, std::ostream& out, std::ostream& err);

// Where ranks other than 0 print.
std::ostream& nullStream();

} // namespace collsim
