// collsim plan SCENARIO: the parallel layouts of a model on a cluster
// (sim/workload/layout_search.h), those that fit simulated in parallel,
// ranked by step time (sim/cli/plan_report.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <mutex>

#include "sim/cli/command.h"
#include "sim/cli/execute_training.h"
#include "sim/cli/plan_report.h"
#include "sim/cli/progress.h"
#include "sim/core/parallel.h"
#include "sim/core/printable.h"
#include "sim/scenario/scenario.h"

namespace collsim {
namespace {

struct PlanJob {
  const Scenario* scenario;
  PlannedLayout layout;
};

PlannedLayout plannedOf(const Scenario& s, LayoutCandidate c) {
  PlannedLayout p;
  p.servers = s.cluster.servers;
  p.devices = s.cluster.ranks();
  p.candidate = std::move(c);
  return p;
}

int runPlan(const std::string& file, std::size_t top, const OutputOptions& o, CliStreams io) {
  if (!o.trace.empty()) throw UsageError("--trace: plan runs many steps; trace one with collsim run and its layout");
  OutputFormat format = outputFormatOf(o);
  std::vector<Scenario> study = loadStudyFile(file, o.sets);
  for (const Scenario& s : study) {
    if (!s.loadError.empty()) throw ConfigError(s.loadError);
    if (!s.plan) throw UsageError(file + " has no plan: block (global_batch and the layouts to search)");
  }
  PlanReport report;
  const Scenario& first = study.front();
  report.name = first.name, report.description = first.description, report.command = "plan";
  report.cluster = first.cluster.name, report.model = first.training->model.name;
  report.parameters = first.training->model.parameters(), report.globalBatch = first.plan->globalBatch;
  report.deviceMemory = first.cluster.device.memory, report.top = top;
  report.algorithm = first.algorithms.front();
  if (first.training->model.transformer) report.sequence = first.training->model.transformer->sequence;

  std::vector<PlanJob> jobs;
  WorkEstimate work;
  for (const Scenario& s : study) {
    StepOptions options = stepOptionsOf(s, s.algorithms.front(), o.seed.value_or(s.simulation.seed), nullptr);
    for (LayoutCandidate& c : enumerateLayouts(s.cluster, *s.training, *s.plan, options.hcclBufferSize)) {
      if (!c.pruned.empty()) {
        report.pruned.push_back(plannedOf(s, std::move(c)));
        continue;
      }
      WorkEstimate e = estimateTrainingStep(s.cluster, trainingFor(*s.training, c), options);
      enforceClock(e, "layout " + c.layout.text());
      work.addSequential(e);
      jobs.push_back({&s, plannedOf(s, std::move(c))});
    }
  }
  if (!checkWork(work, o, hardwareThreads(), first.name, io)) return 0;

  ProgressLine progress(io.progress ? &io.err : nullptr, jobs.size(), "layouts simulated");
  progress.show(0);
  runParallel(
      jobs.size(), hardwareThreads(),
      [&](std::size_t i) {
        PlanJob& job = jobs[i];
        const Scenario& s = *job.scenario;
        try {
          StepOptions options = stepOptionsOf(s, s.algorithms.front(), o.seed.value_or(s.simulation.seed), nullptr);
          job.layout.step = simulateTrainingStep(s.cluster, trainingFor(*s.training, job.layout.candidate), options);
        } catch (const InputError& e) {
          job.layout.error = printable(e.what(), false);
        }
      },
      [&](std::size_t done) { progress.show(done); });
  progress.clear();

  for (PlanJob& job : jobs) report.plans.push_back(std::move(job.layout));
  std::stable_sort(report.plans.begin(), report.plans.end(), [](const PlannedLayout& a, const PlannedLayout& b) {
    if (a.devices != b.devices) return a.devices < b.devices;
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    return a.step.iteration < b.step.iteration;
  });
  emit(formatPlanReport(report, format), o.out, io);
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
  addOutputOptions(cmd, o->output, "override a scenario key: --set plan.global_batch=512 (repeatable)");
  return {cmd, [o](CliStreams io) { return runPlan(o->file, o->top, o->output, io); }};
}

} // namespace collsim
