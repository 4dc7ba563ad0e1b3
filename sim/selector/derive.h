// Deriving selector rules from simulation: for every cluster shape and
// collective of a grid, the fastest candidate at each grid size, and where
// the winner changes between two sizes, the crossover found by bisection
// (in log size) on the two winners' simulated times. Each run of sizes with
// one winner becomes a rule with that size range.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/run/work_estimate.h"
#include "sim/selector/grid.h"
#include "sim/selector/rules.h"

namespace collsim {

struct DerivedRule {
  Rule rule;
  std::string label; // cluster shape
};

// `only`: if not empty, the candidates to choose from.
// The work deriveRules does: every candidate at every size of each cluster
// and collective, and at most one crossover (a bisection of two winners)
// in each gap between sizes, no more gaps than candidates less one.
WorkEstimate estimateDerive(const Grid& grid, const std::vector<std::string>& only, const WorkLimits* stop = nullptr);
std::vector<DerivedRule> deriveRules(const Grid& grid, const std::vector<std::string>& only, std::ostream* progress);
// The rules file; it names the grid it came from (`check` warns when scored on it).
std::string rulesYaml(const std::string& name, const std::string& gridFile, const Grid& grid,
                      const std::vector<DerivedRule>& rules);

} // namespace collsim
