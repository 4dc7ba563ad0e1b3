// Published training runs beside collsim's predictions
// (scenarios/published-runs.yaml, and the held-out curves of
// scenarios/published-curves.yaml; issue 29's target: within 15 % of the
// published MFU). The runs were chosen before their predictions were seen
// (the curves take every row of their table)
// and none of the model's figures is fitted to them: every row the
// scenario lists is checked here, the ones that meet the target against
// 15 %, the ones that do not against the gap they show today (so that the
// gap cannot grow unnoticed; docs/training.md, "Published training runs", says why
// they miss). The table in docs/training.md must show what the run predicts.
#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "test_support.h"

using namespace collsim::testing;
using json = nlohmann::json;

namespace {

struct Row {
  const char* variant;
  double lowest, highest; // predicted / published
};

// Within the target; and today's misses, all over-predictions, with their bound.
const Row kRuns[] = {
    {"korthikanti-175b", 0.85, 1.15}, {"korthikanti-530b", 0.85, 1.15}, {"korthikanti-1t", 0.85, 1.15},
    {"mpt-30b-a100-ckpt", 0.85, 1.15}, {"korthikanti-22b", 1.0, 1.25},  {"mpt-7b-a100", 1.0, 1.20},
    {"mpt-13b-a100", 1.0, 1.28},       {"mpt-7b-h100", 1.0, 1.50},      {"mpt-13b-h100", 1.0, 1.65},
};

// Every row of the MPT table at each sequence length (scenarios/published-curves.yaml).
const Row kCurves[] = {
    {"mpt-7b-s65536-ckpt", 0.85, 1.15},  {"mpt-7b-s32768-ckpt", 0.85, 1.15},  {"mpt-7b-s16384-ckpt", 0.85, 1.15},
    {"mpt-7b-s8192-ckpt", 0.85, 1.15},   {"mpt-7b-s4096-ckpt", 0.85, 1.15},   {"mpt-7b-s1024-ckpt", 0.85, 1.15},
    {"mpt-13b-s32768-ckpt", 0.85, 1.15}, {"mpt-13b-s16384-ckpt", 0.85, 1.15}, {"mpt-13b-s8192-ckpt", 0.85, 1.15},
    {"mpt-13b-s4096-ckpt", 0.85, 1.15},  {"mpt-13b-s1024-ckpt", 0.85, 1.15},  {"mpt-30b-s4096-ckpt", 0.85, 1.15},
    {"mpt-30b-s2048-ckpt", 0.85, 1.15},  {"mpt-30b-s1024-ckpt", 0.85, 1.15},  {"mpt-30b-s512-ckpt", 0.85, 1.15},
    {"mpt-7b-s2048", 1.0, 1.20},         {"mpt-13b-s2048", 1.0, 1.28},        {"mpt-30b-s8192-ckpt", 1.0, 1.50},
};

// Runs the scenario; checks each row's predicted / published MFU against its
// bounds and that docs/training.md's table shows what the run predicts:
// "| variant | ... | published % | predicted % | ratio |".
template <std::size_t N>
void checkAgainstPublished(const char* scenario, const Row (&rows)[N]) {
  CliResult r = cli({"run", source(scenario), "--format", "json"});
  REQUIRE(r.status == 0);
  json doc = json::parse(r.out);
  std::map<std::string, std::pair<double, double>> seen; // variant -> published, predicted
  for (const json& p : doc["points"]) {
    REQUIRE(p.contains("reference"));
    const json& mfu = p["reference"]["mfu"];
    seen[p["variant"].get<std::string>()] = {mfu["published"].get<double>(), mfu["simulated"].get<double>()};
  }
  REQUIRE(seen.size() == N); // a row added to the scenario is added here too
  const std::string page = slurp(source("docs/training.md"));
  for (const Row& row : rows) {
    CAPTURE(row.variant);
    REQUIRE(seen.count(row.variant) == 1);
    auto [published, predicted] = seen[row.variant];
    CHECK(predicted / published >= row.lowest);
    CHECK(predicted / published <= row.highest);
    char cells[64];
    std::snprintf(cells, sizeof cells, "| %.1f | %.1f | %.2f |", 100 * published, 100 * predicted, predicted / published);
    CHECK(contains(page, std::string("| ") + row.variant + " |"));
    CHECK(contains(page, cells));
  }
}

} // namespace

TEST_CASE("published runs - predicted MFU beside published, and docs/training.md shows it") {
  checkAgainstPublished("scenarios/published-runs.yaml", kRuns);
}

TEST_CASE("published runs - held-out curves: MPT at every sequence length measured") {
  checkAgainstPublished("scenarios/published-curves.yaml", kCurves);
}
