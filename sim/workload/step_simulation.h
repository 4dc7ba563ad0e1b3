// Simulates one optimizer step of training on a cluster and the figures a
// capacity plan needs: the step under the training's parallel layout, or
// plain data parallelism with bucketed gradients as the layout tp = pp = 1
// (parallel_step.h).
#pragma once

#include "sim/run/work_estimate.h"
#include "sim/workload/step_result.h"
#include "topologies/cluster.h"

namespace collsim {

StepResult simulateTrainingStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options);

// The work of one step before it runs (sim/run/work_estimate.h): every
// bucket's collective, the compute on the clock.
WorkEstimate estimateTrainingStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options);

} // namespace collsim
