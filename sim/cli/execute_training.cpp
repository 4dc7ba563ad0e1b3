#include "sim/cli/execute_training.h"

#include <algorithm>

#include "sim/cli/progress.h"
#include "sim/core/parallel.h"

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

static StepOptions stepOptionsOf(const Scenario& s, const std::string& algorithm, std::uint64_t seed,
                                 TraceRecorder* trace) {
  StepOptions o;
  o.algorithm = algorithm;
  o.segment = s.simulation.segment;
  o.fidelity = s.simulation.fidelity;
  o.seed = seed;
  if (s.simulation.loopBytes > 0) o.hcclBufferSize = s.simulation.loopBytes;
  o.verify = s.simulation.verify;
  o.trace = trace;
  return o;
}

WorkEstimate estimateTrainingStudy(const std::vector<Scenario>& study) {
  WorkEstimate total;
  for (const Scenario& s : study)
    for (const auto& a : s.algorithms)
      total.addSequential(estimateTrainingStep(s.cluster, *s.training, stepOptionsOf(s, a, 1, nullptr)));
  return total;
}

TrainingReport executeTrainingStudy(const std::vector<Scenario>& study, const std::string& command,
                                    const ExecuteOptions& options) {
  TrainingReport report;
  report.command = command;
  report.seed = options.seed;
  if (!study.empty()) {
    report.name = study.front().name;
    report.description = study.front().description;
  }
  struct Job {
    const Scenario* scenario;
    std::string algorithm;
  };
  std::vector<Job> jobs;
  for (const Scenario& s : study)
    for (const auto& a : s.algorithms) jobs.push_back({&s, a});
  report.points.resize(jobs.size());

  ProgressLine progress(options.progress, jobs.size(), "training steps simulated");
  progress.show(0);
  auto run = [&](std::size_t i) {
    const Scenario& s = *jobs[i].scenario;
    const TrainingSpec& t = *s.training;
    StepOptions o = stepOptionsOf(s, jobs[i].algorithm, options.seed, options.trace);
    TrainingPoint& p = report.points[i];
    p.variant = s.variant;
    p.sweepValues = s.sweepValues;
    p.algorithm = jobs[i].algorithm;
    p.cluster = s.cluster.name;
    p.servers = s.cluster.servers;
    p.devices = s.cluster.ranks();
    p.model = t.model.name;
    p.parameters = t.model.parameters();
    p.bucket = t.bucket;
    p.accumulation = t.accumulation;
    p.pipeline = t.pipeline;
    p.overlap = t.overlap;
    p.microBatch = t.model.microBatch;
    p.reference = s.reference;
    p.referenceInfo = s.referenceInfo;
    p.step = simulateTrainingStep(s.cluster, t, o);
    if (p.algorithm == "auto") p.algorithm += ": " + chosenAlgorithms(p.step);
  };
  // A trace recorder takes one run at a time.
  runParallel(jobs.size(), options.trace ? 1 : hardwareThreads(), run,
              [&](std::size_t done) { progress.show(done); });
  progress.clear();
  return report;
}

} // namespace collsim
