// One optimizer step of plain data parallelism: every device runs the
// whole model; the backward pass fills gradient buckets (gradient_buckets.h)
// whose AllReduces run beside the passes still to come (step_schedule.h),
// replayed on the link network. Called by simulateTrainingStep and
// estimateTrainingStep (step_simulation.h), which check the device and the
// layout first.
#pragma once

#include "sim/run/work_estimate.h"
#include "sim/workload/step_result.h"
#include "topologies/cluster.h"

namespace collsim {

StepResult simulateDataParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options);
WorkEstimate estimateDataParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options);

} // namespace collsim
