// Published training runs beside collsim's predictions
// (scenarios/published-runs.yaml; issue 29's target: within 15 % of the
// published MFU). The runs were chosen before their predictions were seen
// and none of the model's figures is fitted to them: every row the
// scenario lists is checked here, the ones that meet the target against
// 15 %, the ones that do not against the gap they show today (so that the
// gap cannot grow unnoticed; docs/training.md, "Published training runs", says why
// they miss). The table in docs/training.md must show what the run predicts.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.h"

using namespace collsim::testing;
using json = nlohmann::json;

namespace {

struct Row {
  const char* variant;
  double lowest, highest; // predicted / published
};

// Within the target; and today's misses, all over-predictions, with their bound.
const Row kRows[] = {
    {"korthikanti-175b", 0.85, 1.15}, {"korthikanti-530b", 0.85, 1.15}, {"korthikanti-1t", 0.85, 1.15},
    {"mpt-30b-a100-ckpt", 0.85, 1.15}, {"korthikanti-22b", 1.0, 1.25},  {"mpt-7b-a100", 1.0, 1.25},
    {"mpt-13b-a100", 1.0, 1.32},       {"mpt-7b-h100", 1.0, 1.55},      {"mpt-13b-h100", 1.0, 1.70},
};

} // namespace

TEST_CASE("published runs - predicted MFU beside published, and docs/training.md shows it") {
  CliResult r = cli({"run", source("scenarios/published-runs.yaml"), "--format", "json"});
  REQUIRE(r.status == 0);
  json doc = json::parse(r.out);
  std::map<std::string, std::pair<double, double>> seen; // variant -> published, predicted
  for (const json& p : doc["points"]) {
    REQUIRE(p.contains("reference"));
    const json& mfu = p["reference"]["mfu"];
    seen[p["variant"].get<std::string>()] = {mfu["published"].get<double>(), mfu["simulated"].get<double>()};
  }
  REQUIRE(seen.size() == std::size(kRows)); // a row added to the scenario is added here too
  std::ifstream readme(source("docs/training.md"));
  std::stringstream text;
  text << readme.rdbuf();
  for (const Row& row : kRows) {
    CAPTURE(row.variant);
    REQUIRE(seen.count(row.variant) == 1);
    auto [published, predicted] = seen[row.variant];
    CHECK(predicted / published >= row.lowest);
    CHECK(predicted / published <= row.highest);
    // The page's row: "| variant | ... | published % | predicted % | ratio |".
    char cells[64];
    std::snprintf(cells, sizeof cells, "| %.1f | %.1f | %.2f |", 100 * published, 100 * predicted, predicted / published);
    CHECK(contains(text.str(), std::string("| ") + row.variant + " |"));
    CHECK(contains(text.str(), cells));
  }
}
