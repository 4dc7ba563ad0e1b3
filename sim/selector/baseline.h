// A selector baseline: the scores of a rule set on a grid, kept in the
// repository so that CI can tell what a change to the rules did.
//
// The baseline is stamped with the collsim version and a fingerprint of the
// grid and its cluster files. Against a new check it reports regressions
// and improvements (regret grew or fell by more than the tolerance), pick
// changes (old -> new algorithm and rule), grid points the baseline lacks
// and baseline points the grid lost. A changed stamp means the simulator or
// the grid changed: regressions then may come from the model, not the rules.
#pragma once

#include <string>
#include <vector>

#include "sim/selector/check.h"

namespace collsim {

struct BaselineStamp {
  std::string version;         // collsim's
  std::string gridFingerprint; // grid file and its cluster files
  bool operator==(const BaselineStamp&) const = default;
};

struct BaselinePoint {
  std::string key, pick, rule, best;
  double regret = 0;
};

struct Baseline {
  std::string rules;
  BaselineStamp stamp; // empty in baselines written before stamps
  std::vector<BaselinePoint> points;
};

// Throws InputError naming `file` when the text is not a baseline.
Baseline parseBaseline(const std::string& text, const std::string& file);
std::string baselineJson(const std::string& rules, const BaselineStamp& stamp, const std::vector<PointScore>& scores);

struct RegretChange {
  std::string key;
  double before, after;
};
struct PickChange {
  std::string key, oldPick, oldRule, newPick, newRule;
};

struct BaselineDiff {
  std::vector<RegretChange> regressions, improvements;
  std::vector<PickChange> pickChanges;
  std::vector<std::string> added;   // in the grid, not in the baseline
  std::vector<std::string> missing; // in the baseline, not in the grid
  bool stampDiffers = false;
  std::string stampNote; // what differs, in words
  // Fails CI: a regression, or a baseline that does not cover the grid.
  bool fails() const { return !regressions.empty() || !added.empty() || !missing.empty(); }
};

BaselineDiff compareBaseline(const std::vector<PointScore>& now, const BaselineStamp& current, const Baseline& before,
                             double tolerance);

} // namespace collsim
