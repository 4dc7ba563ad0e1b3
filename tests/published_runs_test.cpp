// Published training runs beside collsim's predictions
// (scenarios/published-runs.yaml, and the held-out curves of
// scenarios/published-curves.yaml; issue 29's target: within 15 % of the
// published MFU). The runs were chosen before their predictions were seen
// (the curves take every row of their table) and none of the model's
// figures is fitted to them: every row the scenarios list is checked
// here, the ones that meet the target against
// 15 %, the ones that do not against the gap they show today (so that the
// gap cannot grow unnoticed; docs/validation.md says why they miss). The
// tables in docs/validation.md must show what the runs predict.
#include <array>
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <span>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "test_support.h"

#include "sim/validation/prediction_error.h"

using namespace collsim::testing;
using json = nlohmann::json;

namespace {

// A row the model misses today, over-predicted, with the bound its gap is held to.
struct Miss {
  const char* variant;
  double highest; // predicted / published
};

// scenarios/published-runs.yaml: every other row is within 15 %.
const Miss kRunMisses[] = {{"korthikanti-22b", 1.25}, {"mpt-7b-a100", 1.20}, {"mpt-13b-a100", 1.28},
                           {"mpt-7b-h100", 1.40},     {"mpt-13b-h100", 1.56}};

// scenarios/published-curves.yaml: every MPT row of llm-foundry's A100 table.
const Miss kCurveMisses[] = {
    {"mpt-30b-s8192-ckpt", 1.50}, {"mpt-13b-s2048", 1.28},      {"mpt-7b-s2048", 1.20},
    {"mpt-3b-s2048", 1.20},       {"mpt-3b-s1024", 1.22},       {"mpt-3b-s512", 1.22},
    {"mpt-1b-s2048", 1.20},       {"mpt-1b-s1024", 1.22},       {"mpt-1b-s512", 1.24},
    {"mpt-760m-s4096", 1.20},     {"mpt-760m-s2048", 1.23},     {"mpt-760m-s1024", 1.50},
    {"mpt-760m-s512", 1.60},      {"mpt-350m-s1024", 1.21},     {"mpt-350m-s512", 1.22},
    {"mpt-125m-s4096", 1.20},     {"mpt-125m-s2048-mb40", 1.25}, {"mpt-125m-s2048-mb32", 1.25},
    {"mpt-125m-s1024", 1.28},     {"mpt-125m-s512", 1.30},
};

// scenarios/published-curves-a100-40gb.yaml: the same table's A100 40 GB runs.
const Miss kCurve40Misses[] = {
    {"mpt-13b-s8192-ckpt-40gb", 1.31}, {"mpt-13b-s4096-ckpt-40gb", 1.32}, {"mpt-13b-s2048-ckpt-40gb", 1.37},
    {"mpt-13b-s1024-ckpt-40gb", 1.37}, {"mpt-13b-s512-ckpt-40gb", 1.37}, {"mpt-7b-s512-ckpt-40gb", 1.20},
    {"mpt-3b-s8192-40gb", 1.22}, {"mpt-3b-s4096-40gb", 1.25}, {"mpt-3b-s2048-40gb", 1.23},
    {"mpt-3b-s1024-40gb", 1.25}, {"mpt-3b-s512-40gb", 1.23}, {"mpt-1b-s4096-40gb", 1.21},
    {"mpt-1b-s2048-40gb", 1.24}, {"mpt-1b-s1024-40gb", 1.24}, {"mpt-1b-s512-40gb", 1.26},
    {"mpt-760m-s4096-40gb", 1.23}, {"mpt-760m-s2048-40gb", 1.27}, {"mpt-760m-s1024-40gb", 1.28},
    {"mpt-760m-s512-40gb", 1.30}, {"mpt-125m-s2048-40gb", 1.23}, {"mpt-125m-s1024-40gb", 1.27},
    {"mpt-125m-s512-40gb", 1.29},
};

// scenarios/published-curves-h100.yaml: the same table's H100 rows.
const Miss kCurveH100Misses[] = {
    {"mpt-30b-s8192-ckpt-h100", 1.57}, {"mpt-30b-s4096-ckpt-h100", 1.38}, {"mpt-30b-s2048-ckpt-h100", 1.37},
    {"mpt-30b-s1024-ckpt-h100", 1.38}, {"mpt-13b-s4096-ckpt-h100", 1.20}, {"mpt-13b-s2048-h100", 1.56},
    {"mpt-13b-s1024-ckpt-h100", 1.24}, {"mpt-7b-s2048-h100", 1.39},       {"mpt-7b-s1024-ckpt-h100", 1.25},
    {"mpt-3b-s4096-h100", 1.26},       {"mpt-3b-s1024-h100", 1.33},       {"mpt-3b-s512-h100", 1.37},
    {"mpt-1b-s8192-h100", 1.22},       {"mpt-1b-s4096-h100", 1.29},       {"mpt-1b-s2048-h100", 1.37},
    {"mpt-1b-s1024-h100", 1.45},       {"mpt-1b-s512-h100", 1.47},        {"mpt-760m-s8192-h100", 1.20},
    {"mpt-760m-s4096-h100", 1.30},     {"mpt-760m-s2048-h100", 1.45},     {"mpt-760m-s1024-h100", 1.36},
    {"mpt-760m-s512-h100", 1.39},
};

// The bounds of the rows a scenario does not list: within 15 %.
struct Bounds {
  double lowest = 0.85, highest = 1.15;
};

// Runs the scenario; holds each row's predicted / published MFU to its
// bounds, or a listed miss to its own (and above 1.15: a miss that turns
// into a fit is taken off the list), and checks that docs/validation.md's
// tables show what the run predicts: "| variant | ... | published % |
// predicted % | ratio |".
void checkAgainstPublished(const char* scenario, std::span<const Miss> misses, Bounds rows = {}) {
  CliResult r = cli({"run", source(scenario), "--format", "json"});
  REQUIRE(r.status == 0);
  json doc = json::parse(r.out);
  const std::string page = slurp(source("docs/validation.md"));
  std::size_t missed = 0;
  for (const json& p : doc["points"]) {
    const std::string variant = p["variant"].get<std::string>();
    CAPTURE(variant);
    REQUIRE(p.contains("reference"));
    const json& mfu = p["reference"]["mfu"];
    const double published = mfu["published"].get<double>(), predicted = mfu["simulated"].get<double>();
    const double ratio = predicted / published;
    auto miss = std::find_if(misses.begin(), misses.end(), [&](const Miss& m) { return variant == m.variant; });
    if (miss == misses.end()) {
      CHECK(ratio >= rows.lowest);
      CHECK(ratio <= rows.highest);
    } else {
      ++missed;
      CHECK(ratio > 1.15);
      CHECK(ratio <= miss->highest);
    }
    char cells[64];
    std::snprintf(cells, sizeof cells, "| %.1f | %.1f | %.2f |", 100 * published, 100 * predicted, ratio);
    CHECK(contains(page, "| " + variant + " |"));
    CHECK(contains(page, cells));
  }
  CHECK(missed == misses.size()); // every listed miss is a row of the scenario
}

} // namespace

TEST_CASE("published runs - predicted MFU beside published, and docs/validation.md shows it") {
  checkAgainstPublished("scenarios/published-runs.yaml", kRunMisses);
}

TEST_CASE("published runs - held-out curves: every MPT row of a published table, at every sequence length") {
  checkAgainstPublished("scenarios/published-curves.yaml", kCurveMisses);
}

TEST_CASE("published runs - held-out curves on the A100 40 GB: every MPT row of its table") {
  checkAgainstPublished("scenarios/published-curves-a100-40gb.yaml", kCurve40Misses);
}

TEST_CASE("published runs - held-out curves on the H100: every MPT row of its bf16 table") {
  checkAgainstPublished("scenarios/published-curves-h100.yaml", kCurveH100Misses);
}

namespace {

// log(predicted / published) of every row of docs/validation.md's tables
// (the ones with a "published MFU %" column), each table's rows apart. The
// tests above hold every cell to what the scenarios predict, so the page
// stands for the runs here without running them again.
std::vector<std::vector<double>> pageLogRatios() {
  std::vector<std::vector<double>> tables;
  std::istringstream page(slurp(source("docs/validation.md")));
  int published = -1; // the column of the table being read, -1 outside one
  for (std::string line; std::getline(page, line);) {
    if (!line.starts_with("|")) {
      published = -1;
      continue;
    }
    std::vector<std::string> cells;
    for (std::size_t at = 1, bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1)
      cells.push_back(line.substr(at + 1, bar - at - 2));
    if (published < 0) {
      auto header = std::find(cells.begin(), cells.end(), "published MFU %");
      if (header != cells.end()) published = int(header - cells.begin()), tables.emplace_back();
      continue;
    }
    if (line.starts_with("|---")) continue;
    const double mfu = std::stod(cells.at(std::size_t(published)));
    const double predicted = std::stod(cells.at(std::size_t(published) + 1));
    tables.back().push_back(std::log(predicted / mfu));
  }
  return tables;
}

} // namespace

TEST_CASE("published runs - the plan's uncertainty is these tables' spread (sim/validation/prediction_error.h)") {
  // Every row of the four tables: the root mean square of the log errors
  // (uncalibrated, absolute), and the same about each table's own mean
  // (what tells two layouts of one run apart).
  double squares = 0, within = 0;
  std::size_t rows = 0;
  const auto tables = pageLogRatios();
  CHECK(tables.size() == 4);
  for (const std::vector<double>& errors : tables) {
    double mean = 0;
    for (double e : errors) mean += e / double(errors.size());
    for (double e : errors) squares += e * e, within += (e - mean) * (e - mean);
    rows += errors.size();
  }
  CHECK(rows == 151);
  CHECK(std::sqrt(squares / double(rows)) == doctest::Approx(collsim::kUncalibratedError).epsilon(0.02));
  CHECK(std::sqrt(within / double(rows)) == doctest::Approx(collsim::kBetweenLayoutsError).epsilon(0.06));
}

namespace {

// One calibrating row of a table, by the rule fixed before any was fitted
// (docs/validation.md): the largest model at the table's default sequence,
// 2,048 tokens, one per software stack. `collsim calibrate --on ROW`
// fits it with every figure it exercises, predicts the other rows of the
// stack held out, and the page shows each (its "calibrated %" and ratio
// cells); the held-out errors are held to today's.
struct Calibrated {
  const char* scenario;
  const char* row;
  std::vector<std::string> predict; // empty: every other row on the device
  double median, highest;           // held-out |error| bounds
};

void checkCalibrated(const Calibrated& c) {
  std::vector<std::string> args = {"calibrate", source(c.scenario), "--on", c.row, "--format", "json",
                                   "--max-events", "1e10"};
  if (!c.predict.empty()) {
    std::string list;
    for (const std::string& p : c.predict) list += (list.empty() ? "" : ",") + p;
    args.insert(args.end(), {"--predict", list});
  }
  CliResult r = cli(args);
  REQUIRE(r.status == 0);
  json doc = json::parse(r.out);
  const std::string page = slurp(source("docs/validation.md"));
  auto shown = [&](const json& run, bool fit) {
    const std::string variant = run["run"].get<std::string>();
    CAPTURE(variant);
    const double ratio = run["measured_s"].get<double>() / run["after_s"].get<double>();
    char cells[64];
    std::snprintf(cells, sizeof cells, " | %.2f%s |", ratio, fit ? " (fit)" : "");
    const std::size_t at = page.find("\n| " + variant + " |"); // the row that begins with it
    REQUIRE(at != std::string::npos);
    CHECK(page.substr(at + 1, page.find('\n', at + 1) - at - 1).ends_with(cells));
  };
  shown(doc["runs"][0], true);
  for (const json& run : doc["held_out"]) shown(run, false);
  if (!c.predict.empty()) CHECK(doc["held_out"].size() == c.predict.size());
  CHECK(doc["held_out_median_abs_error"].get<double>() < doc["held_out_median_abs_error_before"].get<double>());
  CHECK(doc["held_out_median_abs_error"].get<double>() <= c.median);
  CHECK(doc["held_out_max_abs_error"].get<double>() <= c.highest);
}

} // namespace

TEST_CASE("published runs - calibrated on one row: Korthikanti et al.'s GPTs (Megatron-LM, 2022)") {
  checkCalibrated({"scenarios/published-runs.yaml", "korthikanti-1t",
                   {"korthikanti-22b", "korthikanti-175b", "korthikanti-530b"}, 0.01, 0.10});
}

TEST_CASE("published runs - calibrated on one row: llm-foundry's MPTs among the published runs (A100, H100)") {
  checkCalibrated({"scenarios/published-runs.yaml", "mpt-30b-a100-ckpt", {"mpt-7b-a100", "mpt-13b-a100"}, 0.125, 0.15});
  checkCalibrated({"scenarios/published-runs.yaml", "mpt-13b-h100", {"mpt-7b-h100"}, 0.135, 0.135});
  // The preset column shows the fitted runs' device (the H100's Triton
  // kernel), not that of the study's first run (an A100's).
  CliResult text = cli({"calibrate", source("scenarios/published-runs.yaml"), "--on", "mpt-13b-h100"});
  REQUIRE(text.status == 0);
  const std::size_t row = text.out.find("attention.flash-triton");
  REQUIRE(row != std::string::npos);
  CHECK(text.out.substr(row, text.out.find('\n', row) - row).find(" 0.245/0.154 ") != std::string::npos);
}

TEST_CASE("published runs - calibrated on one row: every other row of llm-foundry's A100 80 GB table") {
  checkCalibrated({"scenarios/published-curves.yaml", "mpt-30b-s2048-ckpt", {}, 0.05, 0.33});
}

TEST_CASE("published runs - calibrated on one row: every other row of the A100 40 GB and H100 tables") {
  checkCalibrated({"scenarios/published-curves-a100-40gb.yaml", "mpt-13b-s2048-ckpt-40gb", {}, 0.075, 0.16});
  checkCalibrated({"scenarios/published-curves-h100.yaml", "mpt-30b-s2048-ckpt-h100", {}, 0.085, 0.17});
}

namespace {

// docs/validation.md with each run of spaces and line breaks as one space:
// its prose as a sentence to look for, however the page's lines are wrapped.
std::string validationProse() {
  std::string prose;
  for (char c : slurp(source("docs/validation.md")))
    if (!std::isspace(static_cast<unsigned char>(c))) prose += c;
    else if (!prose.ends_with(' ')) prose += ' ';
  return prose;
}

} // namespace

// docs/validation.md ("The published data against itself"): the 40 GB
// table's calibrating row (MPT-13B, 2,048 tokens, 4 x 16, checkpointed:
// 43.94 % MFU) was recorded again by llm-foundry at 51.31 % (torch2.md at
// commit beb8dee). Calibrated on that record instead, the held-out rows
// come closer than by the rule's row; the page gives both figures.
TEST_CASE("published runs - the A100 40 GB table calibrated on the other record of its calibrating row") {
  std::string text = slurp(source("scenarios/published-curves-a100-40gb.yaml"));
  const std::string recorded = "reference: {mfu: 0.4394}", again = "reference: {mfu: 0.5131}";
  const std::size_t at = text.find(recorded);
  REQUIRE(at != std::string::npos);
  REQUIRE(text.find(recorded, at + 1) == std::string::npos); // the calibrating row's alone
  REQUIRE(text.rfind("- name: mpt-13b-s2048-ckpt-40gb", at) == text.rfind("- name: ", at));
  text.replace(at, recorded.size(), again);
  const std::string relative = "../configs/"; // the copy lives elsewhere: its files by absolute path
  for (std::size_t p; (p = text.find(relative)) != std::string::npos;)
    text.replace(p, relative.size(), source("configs") + "/");
  TempDir dir;
  auto heldOut = [](const std::string& scenario) {
    CliResult r =
        cli({"calibrate", scenario, "--on", "mpt-13b-s2048-ckpt-40gb", "--format", "json", "--max-events", "1e10"});
    REQUIRE(r.status == 0);
    json d = json::parse(r.out);
    CHECK(d["held_out"].size() == 45);
    return std::pair{d["held_out_median_abs_error"].get<double>(), d["held_out_max_abs_error"].get<double>()};
  };
  auto [ruleMedian, ruleMax] = heldOut(source("scenarios/published-curves-a100-40gb.yaml"));
  auto [againMedian, againMax] = heldOut(dir.write("again.yaml", text));
  CHECK(againMedian < 0.05);
  CHECK(againMedian < ruleMedian - 0.015);
  CHECK(againMax < ruleMax);
  char said[200];
  std::snprintf(said, sizeof said, "median error of %.1f %% (largest %.1f %%:", 100 * againMedian, 100 * againMax);
  const std::string prose = validationProse();
  CHECK(contains(prose, said));
  std::snprintf(said, sizeof said, "against %.1f %% by the rule", 100 * ruleMedian);
  CHECK(contains(prose, said));
}

// scenarios/published-microbatch.yaml: llm-foundry's sweep of the micro-batch
// at a fixed model and sequence, each run with FSDP's prefetch (the default)
// and in line (training.overlap.param_prefetch: false). docs/validation.md
// ("The micro-batch") shows both; the page's figures are held here.
TEST_CASE("published runs - the micro-batch: in line, collsim's error stays flat where the prefetch's grows") {
  CliResult r = cli({"run", source("scenarios/published-microbatch.yaml"), "--format", "json"});
  REQUIRE(r.status == 0);
  json doc = json::parse(r.out);
  const std::string page = slurp(source("docs/validation.md"));
  std::map<std::string, json> mfu; // by variant: published and simulated
  for (const json& p : doc["points"]) mfu[p["variant"].get<std::string>()] = p["reference"]["mfu"];
  auto ratio = [&](const std::string& variant) {
    return mfu.at(variant)["simulated"].get<double>() / mfu.at(variant)["published"].get<double>();
  };
  double prefetchLow = 9, prefetchHigh = 0, inLineLow = 9, inLineHigh = 0;
  for (const json& p : doc["points"]) {
    const std::string variant = p["variant"].get<std::string>();
    if (variant.ends_with("-in-line")) continue;
    CAPTURE(variant);
    const double a = ratio(variant), b = ratio(variant + "-in-line");
    prefetchLow = std::min(prefetchLow, a), prefetchHigh = std::max(prefetchHigh, a);
    inLineLow = std::min(inLineLow, b), inLineHigh = std::max(inLineHigh, b);
    char row[160];
    std::snprintf(row, sizeof row, "| %s | %d | %.1f | %.1f | %.2f | %.1f | %.2f |", variant.c_str(),
                  p["micro_batch"].get<int>(), 100 * mfu[variant]["published"].get<double>(),
                  100 * mfu[variant]["simulated"].get<double>(), a,
                  100 * mfu[variant + "-in-line"]["simulated"].get<double>(), b);
    CHECK(contains(page, row));
  }
  // Both over-predict (the GEMMs' level); with the prefetch the error grows
  // by more than a sixth from the largest micro-batch to the smallest, in
  // line it stays within 5 % of itself.
  CHECK(prefetchLow > 1.1);
  CHECK(prefetchHigh / prefetchLow > 1.15);
  CHECK(inLineLow > 1.1);
  CHECK(inLineHigh / inLineLow < 1.05);
  // One run calibrates the GEMMs (the rule: MPT-7B's largest micro-batch);
  // the other four held out.
  auto heldOut = [](const std::string& suffix) {
    std::string predict;
    for (const char* v : {"mpt-7b-mb2", "mpt-7b-mb1", "mpt-13b-mb2", "mpt-13b-mb1"})
      predict += (predict.empty() ? "" : ",") + std::string(v) + suffix;
    CliResult c = cli({"calibrate", source("scenarios/published-microbatch.yaml"), "--on", "mpt-7b-mb4" + suffix,
                       "--predict", predict, "--format", "json"});
    REQUIRE(c.status == 0);
    json d = json::parse(c.out);
    return std::pair{d["held_out_median_abs_error"].get<double>(), d["held_out_max_abs_error"].get<double>()};
  };
  auto [prefetchMedian, prefetchMax] = heldOut("");
  auto [inLineMedian, inLineMax] = heldOut("-in-line");
  CHECK(prefetchMedian > 0.10);
  CHECK(prefetchMax > 0.16);
  CHECK(inLineMedian < 0.045);
  CHECK(inLineMax < 0.065);
  char said[160];
  std::snprintf(said, sizeof said,
                "median error of %.1f %% and at most %.1f %% with the prefetch, and %.1f %% and at most %.1f %% in line",
                100 * prefetchMedian, 100 * prefetchMax, 100 * inLineMedian, 100 * inLineMax);
  CHECK(contains(validationProse(), said));
}

// Scale transfer (docs/validation.md, "fit on the smallest, predict the
// rest"): a family's smallest run calibrates the device, its larger runs
// are predicted held out. The MPT table by model size transfers (13.9 ->
// 3.5 %); Korthikanti's GPTs do not (8.6 -> 13.1 %: the 22B's own gap is
// fitted into every GEMM), which the test holds as it is so that a fix shows.
TEST_CASE("published runs - scale transfer: calibrated on the smallest run of a family, the larger predicted") {
  auto transfer = [](const char* scenario, const char* row, const char* predict) {
    CliResult r = cli({"calibrate", source(scenario), "--on", row, "--predict", predict, "--format", "json",
                       "--max-events", "1e10"});
    REQUIRE(r.status == 0);
    json doc = json::parse(r.out);
    return std::array<double, 3>{doc["held_out_median_abs_error_before"].get<double>(),
                                 doc["held_out_median_abs_error"].get<double>(), doc["held_out_max_abs_error"].get<double>()};
  };
  auto mpt = transfer("scenarios/published-curves.yaml", "mpt-125m-s2048-mb32",
                      "mpt-350m-s2048,mpt-760m-s2048,mpt-1b-s2048,mpt-3b-s2048,mpt-7b-s2048,mpt-13b-s2048,mpt-30b-s2048-ckpt");
  CHECK(mpt[0] == doctest::Approx(0.139).epsilon(0.01));
  CHECK(mpt[1] == doctest::Approx(0.035).epsilon(0.02));
  CHECK(mpt[2] == doctest::Approx(0.131).epsilon(0.01));
  auto gpt = transfer("scenarios/published-runs.yaml", "korthikanti-22b", "korthikanti-175b,korthikanti-530b,korthikanti-1t");
  CHECK(gpt[0] == doctest::Approx(0.086).epsilon(0.01));
  CHECK(gpt[1] == doctest::Approx(0.131).epsilon(0.01));
  CHECK(gpt[1] > gpt[0]); // worse than uncalibrated: the gap named above
  CHECK(gpt[2] == doctest::Approx(0.135).epsilon(0.01));
}

// A sweep and a measured run in one command (issue 64 item 4): the cluster
// is calibrated on the sweep first, then the device on the run with that
// cluster, as the two commands would (calibrate LOG --write-cluster C, then
// calibrate RUNS --set cluster=C).
TEST_CASE("published runs - one command calibrates the cluster on a sweep and the device on a run") {
  TempDir dir;
  std::string study = slurp(source("scenarios/published-runs.yaml"));
  study = study.substr(0, study.find("  - name: korthikanti-175b"));
  for (std::size_t at; (at = study.find("../configs/")) != std::string::npos;)
    study.replace(at, 3, source("") + "/");
  const std::string runs = dir.write("runs.yaml", study);
  const std::string log = source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt");
  const std::string cluster = source("configs/clusters/dgx-a100-8.yaml");
  CliResult both = cli({"calibrate", log, runs, "--cluster", cluster, "--write-cluster", dir / "cal.yaml",
                        "--format", "json"});
  REQUIRE(both.status == 0);
  json doc = json::parse(both.out);
  CHECK(doc["cluster"]["fitted"].contains("efficiency"));
  CHECK(doc["device"]["runs"].size() == 1);
  CliResult apart = cli({"calibrate", runs, "--set", "cluster=" + (dir / "cal.yaml"), "--format", "json"});
  REQUIRE(apart.status == 0);
  json second = json::parse(apart.out);
  CHECK(doc["device"]["runs"][0]["after_s"].get<double>() == doctest::Approx(second["runs"][0]["after_s"].get<double>()));
  CHECK(doc["device"]["runs"][0]["before_s"].get<double>() == doctest::Approx(second["runs"][0]["before_s"].get<double>()));
  // Without --write-cluster the calibrated file is the run's own, and gone after.
  CliResult own = cli({"calibrate", log, runs, "--cluster", cluster});
  REQUIRE(own.status == 0);
  CHECK(contains(own.out, "held for the device's fit"));
  // --estimate: both fits estimated, nothing written.
  CliResult estimate = cli({"calibrate", log, runs, "--cluster", cluster, "--estimate", "--format", "json"});
  REQUIRE(estimate.status == 0);
  CHECK(contains(estimate.out, "calibrating against " + log));
  CHECK(contains(estimate.out, "calibrating against " + runs));
  CliResult noCluster = cli({"calibrate", log, runs});
  CHECK(noCluster.status == 2);
  CHECK(contains(noCluster.err, "--cluster"));
}
