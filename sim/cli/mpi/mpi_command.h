// Pieces shared by the collsim-mpi subcommands; one file per subcommand.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/units.h"
#include "sim/cli/mpi/mpi_runner.h"

namespace CLI {
class App;
}

namespace collsim {

// Bad input (exit status 2 on every rank: all ranks parse the same input).
struct MpiUsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct MpiCommand {
  CLI::App* app;
  std::function<int(MpiRunner&, std::ostream& out)> run;
};

MpiCommand addMpiPerfCommand(CLI::App& app);
MpiCommand addMpiSelftestCommand(CLI::App& app);
// `commandLine` is filled in once the arguments are parsed (its results' provenance).
MpiCommand addMpiSweepCommand(CLI::App& app, const std::string& commandLine);
MpiCommand addMpiCalibrateCommand(CLI::App& app);
MpiCommand addMpiCompareCommand(CLI::App& app);

// --timeout: how long a rank waits for a peer before every rank stops (exit 4).
void addPeerTimeoutOption(CLI::App* cmd, double& seconds);

// Sizes b, b*f, ... up to e from the -b/-e/-f strings.
std::vector<Bytes> sweepSizes(const std::string& b, const std::string& e, double factor);

} // namespace collsim
