#include "sim/study/plan_run.h"

#include <algorithm>

#include "sim/study/execute_training.h"
#include "sim/config/config_node.h"
#include "sim/core/printable.h"

namespace collsim {

static PlannedLayout plannedOf(const Scenario& s, LayoutCandidate c) {
  PlannedLayout p;
  p.servers = s.cluster.servers;
  p.devices = s.cluster.ranks();
  p.candidate = std::move(c);
  return p;
}

PlanWork planWork(const std::vector<Scenario>& study, const WorkLimits* stop) {
  for (const Scenario& s : study) {
    if (!s.loadError.empty()) throw ConfigError(s.loadError);
    if (!s.plan) throw InputError(s.name + " has no plan: block (global_batch and the layouts to search)");
  }
  PlanWork w;
  PlanReport& report = w.report;
  const Scenario& first = study.front();
  report.name = first.name, report.description = first.description, report.command = "plan";
  report.cluster = first.cluster.name, report.model = first.training->model.name;
  report.parameters = first.training->model.parameters(), report.globalBatch = first.plan->globalBatch;
  report.deviceMemory = first.cluster.device.memory;
  report.uncertainty = predictionError(first.cluster.device);
  report.algorithm = first.algorithms.front();
  if (first.training->model.transformer) report.sequence = first.training->model.transformer->sequence;
  for (const Scenario& s : study) {
    StepOptions options = stepOptionsOf(s, s.algorithms.front(), s.simulation.seed, nullptr); // the seed sets no estimate
    for (LayoutCandidate& c : enumerateLayouts(s.cluster, *s.training, *s.plan, options.communicatorBuffer)) {
      if (!c.pruned.empty()) {
        report.pruned.push_back(plannedOf(s, std::move(c)));
        continue;
      }
      if (stopSumming(w.work, stop)) return w; // refused: the rest need not be estimated
      WorkEstimate e = estimateTrainingStep(s.cluster, trainingFor(*s.training, c), options);
      enforceClock(e, "layout " + c.layout.text());
      w.work.addSequential(e);
      w.jobs.push_back({&s, plannedOf(s, std::move(c))});
    }
  }
  return w;
}

void simulatePlanJob(PlanJob& job, std::uint64_t seed) {
  const Scenario& s = *job.scenario;
  try {
    StepOptions options = stepOptionsOf(s, s.algorithms.front(), seed, nullptr);
    job.layout.step = simulateTrainingStep(s.cluster, trainingFor(*s.training, job.layout.candidate), options);
  } catch (const InputError& e) {
    job.layout.error = printable(e.what(), false);
  }
}

void rankPlans(PlanWork& work) {
  std::vector<PlannedLayout>& plans = work.report.plans;
  for (PlanJob& job : work.jobs) plans.push_back(std::move(job.layout));
  std::stable_sort(plans.begin(), plans.end(), [](const PlannedLayout& a, const PlannedLayout& b) {
    if (a.devices != b.devices) return a.devices < b.devices;
    if (a.error.empty() != b.error.empty()) return a.error.empty();
    return a.step.iteration < b.step.iteration;
  });
  // Per device count: the layouts within the band of the fastest are ties,
  // which collsim cannot tell apart; the most headroom goes first among them.
  const double band = work.report.uncertainty.betweenLayouts;
  for (auto first = plans.begin(); first != plans.end();) {
    auto group = std::find_if(first, plans.end(), [&](const PlannedLayout& p) { return p.devices != first->devices; });
    if (first->error.empty()) {
      const double limit = double(first->step.iteration) * (1 + band);
      auto ties = std::find_if(first, group, [&](const PlannedLayout& p) {
        return !p.error.empty() || double(p.step.iteration) > limit;
      });
      if (ties - first > 1) {
        for (auto it = first; it != ties; ++it) it->tie = true;
        std::stable_sort(first, ties, [](const PlannedLayout& a, const PlannedLayout& b) {
          return a.candidate.memory.total() < b.candidate.memory.total();
        });
      }
    }
    first = group;
  }
}

} // namespace collsim
