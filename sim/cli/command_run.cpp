// collsim run [SCENARIO.yaml]: a scenario or training study file, or the
// embedded default.
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
            std::vector<Scenario> study =
                o->file.empty()
                    ? loadStudyText(kDefaultScenarioYaml, "<embedded default scenario>", ".", o->output.sets)
                    : loadStudyFile(o->file, o->output.sets);
            for (std::size_t i = 0; i < study.size(); ++i) applyHcclEnv(o->env, study[i], io, i == 0);
            return simulateStudyAndReport(study, "run", o->output, io);
          }};
}

} // namespace collsim
