// The steps of `collsim plan`, shared with `collsim-mpi sweep` (which
// spreads the layouts over MPI ranks): the layouts of a study, one
// layout's simulation, and the ranked report.
#pragma once

#include <string>
#include <vector>

#include "sim/report/plan_report.h"
#include "sim/scenario/scenario.h"

namespace collsim {

struct PlanJob {
  const Scenario* scenario;
  PlannedLayout layout;
};

struct PlanWork {
  PlanReport report; // named, with the pruned layouts
  std::vector<PlanJob> jobs; // the layouts to simulate
  WorkEstimate work;
};

// The layouts of every study point, pruned or to simulate, with their
// estimated work (with `stop`: no further layouts once the sum passes it,
// the work marked partial). Throws InputError for a study that is not a plan.
PlanWork planWork(const std::vector<Scenario>& study, const WorkLimits* stop = nullptr);
// Simulates one layout; a failure becomes its error.
void simulatePlanJob(PlanJob& job, std::uint64_t seed);
// The simulated layouts into the report, fastest first per device count.
void rankPlans(PlanWork& work);

} // namespace collsim
