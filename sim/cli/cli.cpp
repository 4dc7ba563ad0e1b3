#include "sim/cli/cli.h"

#include <filesystem>

#include <sys/stat.h>

#include <CLI/CLI.hpp>

#include "sim/cli/command.h"
#include "sim/report/provenance.h"
#include "sim/cli/suggest.h"
#include "sim/core/printable.h"
#include "sim/config/config_node.h"
#include "sim/config/inputs_read.h"
#include "sim/config/schedule_file.h"
#include "version.h"

namespace collsim {

// An output option naming a file that another argument names as an input
// (`run s.yaml --out s.yaml`, `calibrate log --cluster c.yaml --write-cluster
// c.yaml`) is refused before any work, whatever the spelling (a symlink or
// another hard link is the same file). Inputs read through them (the
// scenario's cluster file) are refused as they are written
// (output_file.h), and up front where read before the outputs are checked.
static void refuseOutputsOverInputs(const CLI::App& cmd) {
  const CLI::Option* update = cmd.get_option_no_throw("--update-baseline");
  const bool baselineWritten = update && update->count() > 0;
  // Values that name things other than files, whatever a folder holds (a rule set's --name r.yaml).
  auto namesFile = [](const std::string& name) {
    for (const char* other : {"--name", "--on", "--predict", "--variant", "--set", "--candidates", "--algo", "--op",
                              "--format", "--fit", "--trace-ranks", "--bytes", "--dtype", "--redop"})
      if (name == other) return false;
    return true;
  };
  auto isOutput = [&](const std::string& name) {
    return name == "--out" || name == "--trace" || name.rfind("--write-", 0) == 0 ||
           (name == "--baseline" && baselineWritten);
  };
  struct Named {
    std::string option, path;
    struct stat st;
  };
  std::vector<Named> inputs, outputs;
  for (const CLI::Option* option : cmd.get_options()) {
    const std::string name = option->get_name();
    for (const std::string& path : option->results()) {
      Named n{name, path, {}};
      if (!namesFile(name) || ::stat(path.c_str(), &n.st) != 0 || !S_ISREG(n.st.st_mode)) continue;
      (isOutput(name) ? outputs : inputs).push_back(n);
    }
  }
  for (const Named& out : outputs)
    for (const Named& in : inputs)
      if (out.st.st_dev == in.st.st_dev && out.st.st_ino == in.st.st_ino)
        throw UsageError(out.option + " " + out.path + ": is " + (in.path == out.path ? "" : in.path + ", ") +
                         "an input of this run (" + in.option + "): an output never replaces an input; write it elsewhere");
  for (const CLI::App* sub : cmd.get_subcommands()) refuseOutputsOverInputs(*sub);
}

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
  forgetInputsRead(); // what an earlier command in this process read is not this one's
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) {
        refuseOutputsOverInputs(*c.app);
        return c.run(io);
      }
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
