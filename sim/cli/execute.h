// Runs every (algorithm, size) point of a scenario and collects a report.
#pragma once

#include <ostream>

#include "sim/cli/report.h"
#include "sim/scenario/scenario.h"

namespace collsim {

class TraceRecorder;

struct ExecuteOptions {
  TraceRecorder* trace = nullptr;
  std::ostream* progress = nullptr; // a terminal: one updating status line
  std::uint64_t seed = 0;
};

Report executeScenario(const Scenario& scenario, const std::string& command, const ExecuteOptions& options);

} // namespace collsim
