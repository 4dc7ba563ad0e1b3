// Results of a training study: one row per point (variant x sweep x
// algorithm) with the step broken down, throughput, scaling and memory;
// the published figures beside the simulated ones when the study has them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "sim/workload/step_simulation.h"

namespace collsim {

struct TrainingPoint {
  std::string variant;
  std::vector<std::pair<std::string, std::string>> sweepValues;
  std::string algorithm;
  std::string cluster;
  int servers = 1, devices = 1;
  std::string model;
  std::uint64_t parameters = 0;
  Bytes bucket = 0;
  int accumulation = 1, pipeline = 1, microBatch = 1;
  bool overlap = true;
  Framework framework = Framework::Ddp;
  bool paramGatherOverlap = false, tpCommOverlap = false, tpWgradOverlap = false;
  StepResult step;
  // A point that could not be simulated keeps its row: "failed" and why.
  std::string status = "ok";
  std::string error;
  bool failed() const { return status != "ok"; }
  std::map<std::string, double> reference;
  ReferenceInfo referenceInfo;
  std::optional<Measurement> measured;
  double measuredStep = 0; // seconds: the measured figure as a step of this run (measurement.h)
  double measuredError() const { return toSeconds(step.iteration) / measuredStep - 1; }
};

struct TrainingReport {
  std::string command, name, description;
  std::uint64_t seed = 0;
  std::vector<TrainingPoint> points;
  std::size_t failedPoints() const;
};

std::string formatTrainingReport(const TrainingReport& report, OutputFormat format);

} // namespace collsim
