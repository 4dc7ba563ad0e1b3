// Runs a scenario file through the installed library and prints its report
// as CSV: what `collsim run SCENARIO --format csv` prints after its
// provenance line.
#include <iostream>

#include "sim/report/report.h"
#include "sim/scenario/scenario.h"
#include "sim/study/execute.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: consumer SCENARIO.yaml\n";
    return 2;
  }
  using namespace collsim;
  for (const Scenario& s : loadStudyFile(argv[1], {}))
    std::cout << formatReport(executeScenario(s, "run", ExecuteOptions{nullptr, nullptr, s.simulation.seed}),
                              OutputFormat::Csv);
  return 0;
}
