// What `collsim plan` prints: per cluster size, the simulated layouts best
// first (step time with its uncertainty band, tokens/s, MFU, memory and
// headroom, and where the step went), and the layouts it pruned with the
// reason. Layouts whose steps lie within the band of the fastest are ties:
// they come first, the most memory headroom first. Table, Markdown, CSV
// and JSON ({"plans": [...], "pruned": [...]}).
#pragma once

#include <string>
#include <vector>

#include "sim/report/report.h"
#include "sim/validation/prediction_error.h"
#include "sim/workload/layout_search.h"
#include "sim/workload/step_simulation.h"

namespace collsim {

struct PlannedLayout {
  int servers = 1, devices = 1;
  LayoutCandidate candidate;
  StepResult step;   // when simulated
  std::string error; // the simulation failed
  bool tie = false;  // within the band of its device count's fastest layout
};

struct PlanReport {
  std::string name, description, command, cluster, model, algorithm;
  std::uint64_t parameters = 0, globalBatch = 0, sequence = 0;
  Bytes deviceMemory = 0;
  std::vector<PlannedLayout> plans;  // simulated, by devices then step time
  std::vector<PlannedLayout> pruned; // candidate.pruned says why
  std::size_t top = 0;               // rows shown per device count (0: all)
  PredictionError uncertainty;       // the device's (sim/validation/prediction_error.h)
};

std::string formatPlanReport(const PlanReport& report, OutputFormat format);

} // namespace collsim
