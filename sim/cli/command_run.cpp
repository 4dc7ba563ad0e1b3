// collsim run [SCENARIO.yaml]: a scenario file, or the embedded default.
#include <CLI/CLI.hpp>

#include "default_scenario.h"
#include "sim/cli/command.h"
#include "sim/scenario/scenario.h"

namespace collsim {

Command addRunCommand(CLI::App& app) {
  struct Options {
    OutputOptions output;
    EnvOptions env;
    std::string file;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("run", "run a scenario YAML (without one: the embedded seed 8-card default)");
  cmd->add_option("scenario", o->file, "scenario YAML file");
  addOutputOptions(cmd, o->output, "override a scenario key: --set cluster.hccs.bandwidth=24GB/s (repeatable)");
  addEnvOptions(cmd, o->env);
  return {cmd, [o](CliStreams io) {
            Scenario s = o->file.empty() ? loadScenarioText(kDefaultScenarioYaml, "<embedded default scenario>", ".",
                                                            o->output.sets)
                                         : loadScenarioFile(o->file, o->output.sets);
            applyHcclEnv(o->env, s, io);
            return simulateAndReport(s, "run", o->output, io);
          }};
}

} // namespace collsim
