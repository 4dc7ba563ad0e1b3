// Scoring a rule set on a grid: for every point, the rules' pick, the best
// candidate by simulation, and the regret (pick's time / best time - 1).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/selector/grid.h"
#include "sim/selector/rules.h"
#include "sim/run/work_estimate.h"

namespace collsim {

struct PointScore {
  std::string key;
  std::string pick, rule, best;
  double pickSeconds = 0, bestSeconds = 0;
  double regret() const { return bestSeconds > 0 ? pickSeconds / bestSeconds - 1 : 0; }
};

// Simulates every (point, candidate) once, spread over `threads` threads;
// reports progress on `progress` if given.
std::vector<PointScore> scoreRules(const SelectorRules& rules, const Grid& grid, int threads, std::ostream* progress);
// The work scoreRules will do, known before it starts.
WorkEstimate estimateRuleScores(const Grid& grid, const WorkLimits* stop = nullptr);


} // namespace collsim
