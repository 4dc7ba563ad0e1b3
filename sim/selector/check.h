// Scoring a rule set on a grid: for every point, the rules' pick, the best
// candidate by simulation, and the regret (pick's time / best time - 1).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/selector/grid.h"
#include "sim/selector/rules.h"

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

struct Regression {
  std::string key;
  double before, after;
};
// Points whose regret grew by more than `tolerance` against a baseline
// (JSON written by baselineJson).
std::vector<Regression> compareBaseline(const std::vector<PointScore>& now, const std::string& baselineJson,
                                        double tolerance);
std::string baselineJson(const std::string& rules, const std::vector<PointScore>& scores);

} // namespace collsim
