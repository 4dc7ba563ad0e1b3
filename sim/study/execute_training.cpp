#include "sim/study/execute_training.h"

#include <algorithm>
#include <mutex>

#include "sim/study/progress.h"
#include "sim/core/parallel.h"
#include "sim/core/printable.h"
#include "sim/validation/profile.h"

namespace collsim {

// The selector's picks over the buckets, in order of first use.
static std::string chosenAlgorithms(const StepResult& step) {
  std::string out;
  std::vector<std::string> seen;
  for (const auto& b : step.buckets) {
    if (std::find(seen.begin(), seen.end(), b.algorithm) != seen.end()) continue;
    seen.push_back(b.algorithm);
    out += (out.empty() ? "" : ", ") + b.algorithm;
  }
  return out;
}

std::vector<TrainingJob> trainingJobs(const std::vector<Scenario>& study) {
  std::vector<TrainingJob> jobs;
  for (const Scenario& s : study) {
    if (!s.loadError.empty()) {
      jobs.push_back({&s, "", s.loadError});
      continue;
    }
    for (const auto& a : s.algorithms) jobs.push_back({&s, a, ""});
  }
  return jobs;
}

WorkEstimate estimateTrainingJobs(std::vector<TrainingJob>& jobs, const WorkLimits* stop) {
  WorkEstimate total;
  for (TrainingJob& job : jobs) {
    if (!job.error.empty()) continue;
    if (stopSumming(total, stop)) break;
    const Scenario& s = *job.scenario;
    try {
      WorkEstimate e = estimateTrainingStep(s.cluster, *s.training, stepOptionsOf(s, job.algorithm, 1, nullptr));
      enforceClock(e, "this point");
      total.addSequential(e);
    } catch (const InputError& e) {
      job.error = printable(e.what(), false);
    }
  }
  return total;
}

std::string trainingPointKey(const TrainingJob& job) {
  std::string key = job.scenario->variant;
  for (const auto& [k, v] : job.scenario->sweepValues) key += "\x1f" + k + "=" + v;
  return key + "\x1f" + job.algorithm;
}

// The measured figure as a step of the run the point simulated (a profile
// alone: the profile's mean step).
static void setMeasuredStep(TrainingPoint& p, const Scenario& s) {
  if (!p.measured) return;
  const Measurement& m = *p.measured;
  p.measuredStep = m.figure == Measurement::Figure::Profile
                       ? breakdownOf(readProfile(m.profile, m.profileDevice)).perStep.step
                       : measuredStepSeconds(m, p.step, s.training->model);
}

// The row's labels and configuration, filled before the step runs.
static TrainingPoint describe(const TrainingJob& job) {
  const Scenario& s = *job.scenario;
  TrainingPoint p;
  p.variant = s.variant;
  p.sweepValues = s.sweepValues;
  p.algorithm = job.algorithm;
  p.reference = s.reference;
  p.referenceInfo = s.referenceInfo;
  p.measured = s.measured;
  if (!s.training) return p;
  const TrainingSpec& t = *s.training;
  p.cluster = s.cluster.name;
  p.servers = s.cluster.servers;
  p.devices = s.cluster.ranks();
  p.model = t.model.name;
  p.parameters = t.model.parameters();
  p.bucket = t.bucket;
  p.accumulation = t.accumulation;
  p.pipeline = t.pipeline;
  p.overlap = t.overlap;
  p.framework = t.framework;
  p.paramGatherOverlap = t.paramGatherOverlap, p.tpCommOverlap = t.tpCommOverlap, p.tpWgradOverlap = t.tpWgradOverlap;
  p.microBatch = t.model.microBatch;
  return p;
}

TrainingReport executeTrainingJobs(const std::vector<TrainingJob>& jobs, const std::string& command,
                                   const ExecuteOptions& options, const TrainingRunHooks& hooks) {
  TrainingReport report;
  report.command = command;
  report.seed = options.seed;
  if (!jobs.empty()) {
    report.name = jobs.front().scenario->name;
    report.description = jobs.front().scenario->description;
  }
  report.points.resize(jobs.size());
  std::vector<std::size_t> toRun;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (auto it = hooks.done.find(i); it != hooks.done.end()) {
      // The journal holds the result; the row's configuration comes from the study.
      TrainingPoint p = describe(jobs[i]);
      p.algorithm = it->second.algorithm;
      p.step = it->second.step;
      setMeasuredStep(p, *jobs[i].scenario);
      report.points[i] = std::move(p);
    } else if (!jobs[i].error.empty()) {
      report.points[i] = describe(jobs[i]);
      report.points[i].status = "failed";
      report.points[i].error = jobs[i].error;
    } else {
      toRun.push_back(i);
    }
  }

  ProgressLine progress(options.progress, toRun.size(), "training steps simulated");
  progress.show(0);
  std::mutex completing;
  auto run = [&](std::size_t k) {
    std::size_t i = toRun[k];
    const Scenario& s = *jobs[i].scenario;
    TrainingPoint p = describe(jobs[i]);
    try {
      p.step = simulateTrainingStep(s.cluster, *s.training, stepOptionsOf(s, jobs[i].algorithm, options.seed, options.trace));
      if (p.algorithm == "auto" && !p.step.buckets.empty()) p.algorithm += ": " + chosenAlgorithms(p.step);
      setMeasuredStep(p, s);
    } catch (const InputError& e) {
      p.status = "failed";
      p.error = printable(e.what(), false);
    }
    report.points[i] = std::move(p);
    if (hooks.completed) {
      std::lock_guard guard(completing);
      hooks.completed(i, report.points[i]);
    }
  };
  // A trace recorder takes one run at a time.
  runParallel(toRun.size(), options.trace ? 1 : hardwareThreads(), run, [&](std::size_t done) { progress.show(done); });
  progress.clear();
  return report;
}

} // namespace collsim
