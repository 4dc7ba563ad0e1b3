// The options of a scenario's training step (sim/workload/step_simulation.h)
// under one of its algorithms: its simulation settings, its network, the
// compute its library's collectives take, and `auto`'s rules.
#pragma once

#include "sim/scenario/scenario.h"
#include "sim/workload/step_simulation.h"

namespace collsim {

StepOptions stepOptionsOf(const Scenario& s, const std::string& algorithm, std::uint64_t seed, TraceRecorder* trace);

} // namespace collsim
