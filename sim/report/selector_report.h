// What `collsim selector check` prints: the rule set's scores on the grid
// and, against a baseline, what changed. Table, JSON, CSV, Markdown (a
// summary for a pull request) and JUnit XML (one test case per grid point,
// for CI dashboards).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/selector/baseline.h"

namespace collsim {

struct SelectorCheckReport {
  std::string rules, grid, baselineFile;
  double tolerance = 0;
  std::vector<PointScore> scores;
  std::optional<BaselineDiff> diff; // when checked against a baseline
};

// `format`: table, json, csv, md or junit. Throws UsageError on another.
std::string formatSelectorCheck(const SelectorCheckReport& r, OutputFormat format);

} // namespace collsim
