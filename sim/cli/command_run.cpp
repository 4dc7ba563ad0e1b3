// collsim run [SCENARIO.yaml]: a scenario or training study file, or the
// embedded default.
#include <CLI/CLI.hpp>

#include "default_scenario.h"
#include "sim/cli/command.h"
#include "sim/core/fingerprint.h"
#include "sim/scenario/scenario.h"
#include "sim/hccl/hccl_env.h"

namespace collsim {

// What decides a study's results besides the files it reads (the journal
// lists those by path and content): --resume refuses partial results made
// otherwise. The embedded default is no file, so its text counts here.
static std::string studyFingerprint(const std::string& file, const OutputOptions& output, const EnvOptions& env) {
  Fingerprint f;
  f.add(COLLSIM_VERSION_STRING).add(file.empty() ? kDefaultScenarioYaml : "");
  for (const auto& s : output.sets) f.add(s);
  if (env.process)
    for (const auto& e : readProcessEnv()) f.add(e.name + "=" + e.value);
  f.add(output.seed ? std::to_string(*output.seed) : "scenario seed");
  return f.hex();
}

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
  cmd->add_flag("--resume", o->output.resume,
                "continue an interrupted training study from --out FILE's partial results (FILE.partial)");
  return {cmd, [o](CliStreams io) {
            StudyReader study = o->file.empty() ? StudyReader(kDefaultScenarioYaml, "<embedded default scenario>", ".",
                                                              o->output.sets)
                                                : openStudyFile(o->file, o->output.sets);
            study.onEachPoint([o, io, first = true](Scenario& s) mutable {
              applyHcclEnv(o->env, s, io, first);
              first = false;
            });
            o->output.fingerprint = studyFingerprint(o->file, o->output, o->env);
            o->output.resolvedInput = study.resolvedYaml();
            return simulateStudyAndReport(study, "run", o->output, io);
          }};
}

} // namespace collsim
