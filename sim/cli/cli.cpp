#include "sim/cli/cli.h"

#include <filesystem>

#include <CLI/CLI.hpp>

#include "sim/cli/command.h"
#include "sim/report/provenance.h"
#include "sim/cli/suggest.h"
#include "sim/core/printable.h"
#include "sim/config/config_node.h"
#include "sim/config/schedule_file.h"
#include "version.h"

namespace collsim {

int runCli(int argc, const char* const* argv, CliStreams io) {
  CLI::App app{"collsim: a discrete-event simulator of collective communication on NPU/GPU clusters"};
  app.set_version_flag("--version", std::string("collsim ") + COLLSIM_VERSION_STRING + " (git " + kGitCommit + ")");
  app.require_subcommand(1);
  std::vector<Command> commands = {addRunCommand(app),        addPerfCommand(app),   addVerifyCommand(app),
                                   addAlgorithmsCommand(app), addSelectCommand(app), addSelectorCommand(app),
                                   addHcclEnvCommand(app),    addCompareCommand(app),  addCalibrateCommand(app),
                                   addPlanCommand(app),       addTopologyCommand(app),   addProfileCommand(app),
                                   addNpkitCommand(app),
                                   addScheduleCommand(app),   addKeysCommand(app)};
  registerScheduleFiles();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, io.out, io.err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, io.out, io.err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, io.out, io.err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, io.out, io.err);
    io.err << suggestionsFor(app, e.what());
    return 2;
  }

  io.commandLine = commandLineOf(argc, argv);
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run(io);
    return 2;
  } catch (const InputError& e) {
    io.err << "collsim: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the system refuses (too long, not a folder).
    io.err << "collsim: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const YAML::Exception& e) {
    // Input read by yaml-cpp outside the located readers: still bad input.
    io.err << "collsim: error: YAML: " << printable(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {
    io.err << "collsim: internal error: " << printable(e.what()) << "\n";
    return 1;
  }
}

} // namespace collsim
