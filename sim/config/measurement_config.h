// Reading a scenario's or a variant's `measured:` (sim/workload/measurement.h).
#pragma once

#include "sim/workload/measurement.h"
#include "sim/workload/training.h"
#include "topologies/cluster.h"

namespace collsim {

class ConfigNode;

// One figure, checked against the run it measures: a count its model can
// make, a peak for mfu, a sequence for tokens; a profile that exists
// (relative to `baseDir`, the scenario's folder). Throws ConfigError.
Measurement loadMeasurement(const ConfigNode& node, const TrainingSpec& training, const DeviceModel& device,
                            const std::string& baseDir);

} // namespace collsim
