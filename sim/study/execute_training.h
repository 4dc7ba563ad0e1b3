// Runs the points of a training study, two at a time, and collects a report.
//
// A point that cannot be simulated (its keys make a cluster that cannot
// exist, its step would overflow the clock, its algorithm cannot run there)
// keeps its row as "failed" with the reason; the others complete.
#pragma once

#include <functional>
#include <vector>

#include "sim/scenario/step_options.h"
#include "sim/study/execute.h"
#include "sim/report/training_report.h"

namespace collsim {

// One training step to simulate: a study point and an algorithm.
struct TrainingJob {
  const Scenario* scenario;
  std::string algorithm;
  std::string error; // set when the point failed before it ran
};

std::vector<TrainingJob> trainingJobs(const std::vector<Scenario>& study);
// The work of every job, added up; a job whose estimate fails gets its error.
WorkEstimate estimateTrainingJobs(std::vector<TrainingJob>& jobs, const WorkLimits* stop = nullptr);

struct TrainingRunHooks {
  // Points already simulated (--resume): job index -> its point.
  std::map<std::size_t, TrainingPoint> done;
  // Called for every point as it completes (one call at a time).
  std::function<void(std::size_t job, const TrainingPoint&)> completed;
};

TrainingReport executeTrainingJobs(const std::vector<TrainingJob>& jobs, const std::string& command,
                                   const ExecuteOptions& options, const TrainingRunHooks& hooks = {});

// A point's identity within its study, stable across runs (the journal key).
std::string trainingPointKey(const TrainingJob& job);

} // namespace collsim
