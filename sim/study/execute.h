// Runs every (algorithm, size) point of a scenario and collects a report.
#pragma once

#include <ostream>

#include "sim/report/report.h"
#include "sim/run/work_estimate.h"
#include "sim/scenario/scenario.h"

namespace collsim {

class TraceRecorder;

struct ExecuteOptions {
  TraceRecorder* trace = nullptr;
  std::ostream* progress = nullptr; // a terminal: one updating status line
  std::uint64_t seed = 0;
};

Report executeScenario(const Scenario& scenario, const std::string& command, const ExecuteOptions& options);
// The work of every point, one after another (sim/run/work_estimate.h).
WorkEstimate estimateScenario(const Scenario& scenario, const WorkLimits* stop = nullptr, bool traced = false);

// The same, point by point, for callers that spread the points (collsim-mpi
// sweep): one point is one algorithm at one size, in report order.
struct ScenarioPoint {
  std::string algorithm;
  Bytes size;
  bool verify; // check the schedule symbolically first (once per algorithm)
};
std::vector<ScenarioPoint> scenarioPoints(const Scenario& scenario);
CollectiveRun runPoint(const Scenario& scenario, const ScenarioPoint& point, TraceRecorder* trace = nullptr,
                       std::uint64_t seed = 1, const std::string& studyPoint = "");
// A report with the scenario's header and no results yet.
Report emptyReport(const Scenario& scenario, const std::string& command, std::uint64_t seed);

} // namespace collsim
