// Runs every point of a training study (each scenario of the study times
// each of its algorithms), in parallel on the machine's cores unless a
// trace is recorded, with a progress line on a terminal.
#pragma once

#include <vector>

#include "sim/cli/execute.h"
#include "sim/cli/training_report.h"

namespace collsim {

TrainingReport executeTrainingStudy(const std::vector<Scenario>& study, const std::string& command,
                                    const ExecuteOptions& options);
// The work of every point's step, added up (points run two at a time).
WorkEstimate estimateTrainingStudy(const std::vector<Scenario>& study);

} // namespace collsim
