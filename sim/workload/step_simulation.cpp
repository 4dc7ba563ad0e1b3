#include "sim/workload/step_simulation.h"

#include "sim/core/input_error.h"
#include "sim/workload/parallel_step.h"

namespace collsim {
namespace {

void checkDevice(const Cluster& cluster, const ModelSpec& model) {
  if (!model.forward && cluster.device.flops <= 0)
    throw InputError("the model is timed from its FLOPs but the cluster's device has no flops rate");
  if (cluster.device.memoryBandwidth == 0) throw InputError("the cluster's device has no memory bandwidth");
}

} // namespace

StepResult simulateTrainingStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options) {
  checkDevice(cluster, training.model);
  checkParallelLayout(cluster, training);
  return simulateParallelStep(cluster, training, options);
}

WorkEstimate estimateTrainingStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options) {
  checkDevice(cluster, training.model);
  checkParallelLayout(cluster, training);
  return estimateParallelStep(cluster, training, options);
}

} // namespace collsim
