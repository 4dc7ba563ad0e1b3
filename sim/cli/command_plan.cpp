// collsim plan SCENARIO: the parallel layouts of a model on a cluster
// (sim/workload/layout_search.h), those that fit simulated in parallel,
// ranked by step time (sim/cli/plan_report.h).
#include <CLI/CLI.hpp>

#include "sim/cli/command.h"
#include "sim/report/provenance.h"
#include "sim/study/execute_training.h"
#include "sim/study/plan_run.h"
#include "sim/study/progress.h"
#include "sim/core/parallel.h"
#include "sim/scenario/scenario.h"

namespace collsim {
namespace {

int runPlan(const std::string& file, std::size_t top, const OutputOptions& o, CliStreams io) {
  OutputFormat format = o.format;
  std::vector<Scenario> study = loadStudyFile(file, o.sets);
  PlanWork work;
  auto estimate = [&](const WorkLimits* stop) {
    work = planWork(study, stop);
    return work.work;
  };
  if (!checkWork(o.limits, hardwareThreads(), study.front().name, io, estimate)) return 0;
  work.report.top = top;

  ProgressLine progress(io.progress ? &io.err : nullptr, work.jobs.size(), "layouts simulated");
  progress.show(0);
  runParallel(
      work.jobs.size(), hardwareThreads(),
      [&](std::size_t i) {
        const Scenario& s = *work.jobs[i].scenario;
        simulatePlanJob(work.jobs[i], o.seed.value_or(s.simulation.seed));
      },
      [&](std::size_t done) { progress.show(done); });
  progress.clear();
  rankPlans(work);
  std::string resolved = study.front().resolvedYaml ? *study.front().resolvedYaml : "";
  emit(withProvenance(formatPlanReport(work.report, format), format, io.commandLine, resolved), o.out, io);
  return 0;
}

} // namespace

Command addPlanCommand(CLI::App& app) {
  struct Options {
    OutputOptions output;
    std::string file;
    std::size_t top = 0;
  };
  auto o = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("plan", "rank the parallel layouts (tp, pp, dp, ZeRO, micro-batches) of a model "
                                         "on a cluster that fit in memory, by simulated step time");
  cmd->add_option("scenario", o->file, "scenario YAML with training: and plan: blocks")->required();
  cmd->add_option("--top", o->top, "show the best N layouts per device count (default: all)")->check(digitsOnly());
  // No --trace: a plan runs many steps; `collsim run` traces one layout.
  addOutputOptions(cmd, o->output, "override a scenario key: --set plan.global_batch=512 (repeatable)", false);
  return {cmd, [o](CliStreams io) { return runPlan(o->file, o->top, o->output, io); }};
}

} // namespace collsim
