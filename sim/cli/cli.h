// The collsim command line, as a function so tests can call it in-process.
//
// Exit status: 0 success, 1 internal failure (e.g. the checker rejects a
// schedule), 2 bad input (usage, YAML, units, topology, algorithm, work too
// large), 3 some points of a study failed (the others are reported). Output
// files are written only when everything succeeded.
#pragma once

#include <ostream>

namespace collsim {

struct CliStreams {
  std::ostream& out;
  std::ostream& err;
  bool progress = false; // show a progress line on err (a terminal)
  std::string commandLine = {}; // as typed (runCli sets it), for the results' provenance
};

int runCli(int argc, const char* const* argv, CliStreams io);

} // namespace collsim
