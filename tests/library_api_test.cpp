// collsim as a C++ library, without its command line: load a scenario or a
// plan, run it, format the report. The results are the command line's, byte
// for byte after its provenance line (the command line is a thin layer over
// sim/study and sim/report).
#include <doctest/doctest.h>

#include "sim/report/plan_report.h"
#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "sim/study/execute.h"
#include "sim/study/plan_run.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::testing;

TEST_CASE("library: a scenario run from C++ reports what collsim run prints") {
  std::vector<Scenario> study = loadStudyFile(source("scenarios/default.yaml"), {});
  REQUIRE(study.size() == 1);
  Report report = executeScenario(study.front(), "run", ExecuteOptions{nullptr, nullptr, study.front().simulation.seed});
  REQUIRE(!report.results.empty());
  for (const CollectiveRun& r : report.results) CHECK(r.execution.finish > 0);
  CliResult printed = cli({"run", source("scenarios/default.yaml"), "--format", "csv"});
  REQUIRE(printed.status == 0);
  CHECK(afterProvenance(printed.out) == formatReport(report, OutputFormat::Csv));
}

TEST_CASE("library: a plan ranked from C++ is collsim plan's") {
  // Four of the plan's layouts (the sanitizer build runs this too).
  const std::vector<std::string> fewer = {"plan.tp=[2,8]", "plan.pp=[1,2]"};
  std::vector<Scenario> study = loadStudyFile(source("tests/data/training/plan-llama3-8b-2x8.yaml"), fewer);
  PlanWork work = planWork(study);
  REQUIRE(!work.jobs.empty());
  for (PlanJob& job : work.jobs) simulatePlanJob(job, job.scenario->simulation.seed);
  rankPlans(work);
  REQUIRE(!work.report.plans.empty());
  for (std::size_t i = 1; i < work.report.plans.size(); ++i)
    if (work.report.plans[i].devices == work.report.plans[i - 1].devices && !work.report.plans[i].tie)
      CHECK(work.report.plans[i].step.iteration >= work.report.plans[i - 1].step.iteration); // fastest first, ties aside
  CliResult printed = cli({"plan", source("tests/data/training/plan-llama3-8b-2x8.yaml"), "--format", "csv", "--set",
                           fewer[0], "--set", fewer[1]});
  REQUIRE(printed.status == 0);
  CHECK(afterProvenance(printed.out) == formatPlanReport(work.report, OutputFormat::Csv));
}
