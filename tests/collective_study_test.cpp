// Variants and sweeps of collective scenarios: every row equals the same
// point run on its own, a sweep axis can be added from the command line,
// and failing points keep their rows.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

#include "sim/config/config_node.h"
#include "sim/core/parallel.h"
#include "sim/study/execute.h"
#include "sim/study/study_estimate.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

std::string scenarioYaml(const std::string& extra = "") {
  return "name: study\ncluster: " + source("configs/clusters/atlas-2x8.yaml") +
         "\nop: allreduce\nalgo: [ring, rhd]\nsizes: [64KiB, 4MiB]\n" + extra;
}

} // namespace

TEST_CASE("a collective study's rows are each point run on its own, in the file's order") {
  TempDir dir;
  std::string study = dir.write("study.yaml", scenarioYaml("sweep:\n  cluster.servers: [2, 3]\n"));
  std::string single = dir.write("single.yaml", scenarioYaml());
  CliResult r = cli({"run", study, "--format", "csv"});
  REQUIRE(r.status == 0);
  Csv rows = Csv::parse(r.out);
  // 2 points x 2 algorithms x 2 sizes, the swept key as a column.
  REQUIRE(rows.rows.size() == 8);
  CHECK(rows.header.front() == "cluster.servers");
  std::size_t row = 0;
  for (std::string servers : {"2", "3"}) {
    // The oracle: the scenario without a sweep, its servers set on the
    // command line, through the single-scenario path.
    CliResult alone = cli({"run", single, "--set", "cluster.servers=" + servers, "--format", "csv"});
    REQUIRE(alone.status == 0);
    Csv expected = Csv::parse(alone.out);
    REQUIRE(expected.rows.size() == 4);
    for (std::size_t i = 0; i < 4; ++i, ++row) {
      CHECK(rows.at(row, "cluster.servers") == servers);
      CHECK(rows.at(row, "status") == "ok");
      for (const char* column : {"algorithm", "ranks", "bytes", "time_us", "busbw_GBps", "events", "fastest"})
        CHECK(rows.at(row, column) == expected.at(i, column));
    }
  }
}

TEST_CASE("--set 'sweep[KEY.WITH.DOTS]=[...]' adds a sweep axis - variants add a column") {
  TempDir dir;
  std::string file = dir.write("s.yaml", scenarioYaml());
  CliResult r = cli({"run", file, "--set", "sweep[cluster.servers]=[2,4]", "--set", "sizes=[1MiB]", "--format", "json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["sweep_keys"] == nlohmann::json::array({"cluster.servers"}));
  CHECK(doc["points"] == 2);
  REQUIRE(doc["results"].size() == 4);
  CHECK(doc["results"][3]["sweep"]["cluster.servers"] == "4");
  CHECK(doc["results"][3]["ranks"] == 32);
  // Exactly one algorithm is the fastest at each point and size.
  CHECK(doc["results"][0]["fastest"] != doc["results"][1]["fastest"]);

  std::string variants = dir.write("v.yaml", scenarioYaml("variants:\n  - {name: slow, set: {cluster.roce.bandwidth: "
                                                          "25Gbps}}\n  - {name: fast, set: {}}\n"));
  CliResult table = cli({"run", variants, "--set", "sizes=[16MiB]"});
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "variant"));
  CHECK(contains(table.out, "slow"));
  CHECK(contains(table.out, "(2 points; time_us per algorithm; * = fastest)"));

  CliResult bad = cli({"run", file, "--set", "sweep[cluster.servers=[2,4]"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "'[' without ']'"));
}

TEST_CASE("a bracketed key keeps its dots - malformed paths are refused") {
  CHECK(splitKeyPath("a.b[c.d].e", "t") == std::vector<std::string>{"a", "b", "c.d", "e"});
  CHECK(splitKeyPath("sweep[cluster.servers]", "t") == std::vector<std::string>{"sweep", "cluster.servers"});
  CHECK(splitKeyPath("a[b][c]", "t") == std::vector<std::string>{"a", "b", "c"});
  CHECK(splitKeyPath("cluster.servers", "t") == std::vector<std::string>{"cluster", "servers"});
  for (std::string bad : {"a[b", "a]b", "a[]", "a[b]c", "a.", "a..b", ".a"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(splitKeyPath(bad, "t"), ConfigError);
  }
}

TEST_CASE("a collective study keeps failing points' rows (exit 3) - every point failing is exit 2") {
  TempDir dir;
  // 0 servers is out of range, and one server has no second level for
  // hier:ring+rhd: both points fail as they load; the third runs.
  std::string file = dir.write("s.yaml", scenarioYaml("sweep:\n  cluster.servers: [0, 1, 2]\n"));
  CliResult r = cli({"run", file, "--set", "algo=[ring, 'hier:ring+rhd']", "--set", "sizes=[1MiB]", "--format", "json"});
  CHECK(r.status == 3);
  CHECK(contains(r.err, "2 of 4 runs failed"));
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["failed"] == 2);
  REQUIRE(doc["results"].size() == 4);
  CHECK(doc["results"][0]["status"] == "failed");
  CHECK(contains(doc["results"][0]["error"].get<std::string>(), "0 is out of range"));
  CHECK(contains(doc["results"][1]["error"].get<std::string>(), "needs a cluster of several servers"));
  CHECK(doc["results"][2]["status"] == "ok");
  CHECK(doc["results"][3]["algorithm"] == "hier:ring+rhd");
  CHECK(doc["results"][3]["fastest"] == true);
  CliResult table = cli({"run", file, "--set", "algo=[ring, 'hier:ring+rhd']", "--set", "sizes=[1MiB]"});
  CHECK(table.status == 3);
  CHECK(contains(table.out, "# failed: cluster.servers=1: "));
  CliResult csv = cli({"run", file, "--set", "algo=[ring, 'hier:ring+rhd']", "--set", "sizes=[1MiB]", "--format", "csv"});
  CHECK(csv.status == 3);
  CHECK(Csv::parse(csv.out).at(1, "status") == "failed");

  CliResult all = cli({"run", file, "--set", "sweep[cluster.servers]=[0]"});
  CHECK(all.status == 2);
  CHECK(contains(all.err, "0 is out of range"));
}

// Reading a point costs about as much as estimating it: a study's estimate
// reads a stratified sample of its points (rounds of 1, 2, 4, ... 256 strata
// middles) and scales the sample's sum up; a small study, every point.
TEST_CASE("a study's estimate reads a sample of its points - every point of a small one") {
  CHECK(studySampleRound(1000, 0) == std::vector<std::size_t>{500});
  CHECK(studySampleRound(1000, 2) == std::vector<std::size_t>{125, 375, 625, 875});
  CHECK(studySampleRound(3, 2) == std::vector<std::size_t>{0, 1, 2});

  // The oracle: every point read and estimated on its own, summed.
  auto exactSum = [](const StudyReader& study) {
    WorkEstimate sum;
    for (const Scenario& s : study.all()) sum.addSequential(estimateScenario(s));
    return sum;
  };
  auto sweep = [](int values) {
    return "name: s\ncluster: " + source("configs/clusters/hccs-ring-8.yaml") +
           "\nop: allreduce\nalgo: ring\nsizes: [1MiB]\nsweep:\n  simulation.segment: {from: 4096, to: " +
           std::to_string(4096 + 64 * (values - 1)) + ", step: 64}\n";
  };
  int read = 0;
  StudyReader small(sweep(6), "small.yaml", ".", {});
  small.onEachPoint([&](Scenario&) { ++read; });
  WorkEstimate e = estimateStudy(small);
  CHECK(read == 6); // rounds of 1, 2, 4 and 6 points share them: each read once
  CHECK(e.events == exactSum(small).events);

  // 4,000 points whose segment count goes from 32 to 8 per message.
  StudyReader large(sweep(4000), "large.yaml", ".", {});
  read = 0;
  large.onEachPoint([&](Scenario&) { ++read; });
  e = estimateStudy(large);
  CHECK(read <= 511); // 1 + 2 + ... + 256
  const WorkEstimate exact = exactSum(large);
  CHECK(e.events == doctest::Approx(exact.events).epsilon(0.02));
  CHECK(e.memoryBytes == exact.memoryBytes);
  // The run holds every point it read, and its result, to the end: per
  // point alike here (one cluster), and one run each.
  CHECK(e.heldBytes == doctest::Approx(estimateStudy(small).heldBytes * 4000 / 6).epsilon(0.01));
  CHECK(e.heldBytes > 4000 * 1000.0);
  CHECK(e.runs == doctest::Approx(4000));
  CHECK(e.serialSeconds > 0); // reading them, timed on the sample

  // Past a limit, the first round that passes it is the answer.
  WorkLimits tight;
  tight.maxEvents = 1000;
  read = 0;
  e = estimateStudy(large, &tight);
  CHECK(e.partial);
  CHECK(read == 1);
}

// A command runs its runs `threads` at once on this machine's cores: the
// time that is not serial divides among them, the memory of a run
// multiplies by those in flight, and what the command holds adds once.
TEST_CASE("a command's estimate is its runs in parallel: time divided, memory multiplied, the held part once") {
  WorkEstimate e;
  e.wallSeconds = 10, e.serialSeconds = 2, e.runs = 8, e.memoryBytes = 100, e.heldBytes = 50;
  const WorkEstimate one = inParallel(e, 1);
  CHECK(one.wallSeconds == doctest::Approx(0.01 + 10)); // the process's start, then all of it
  CHECK(one.memoryBytes == 150);
  if (hardwareThreads() >= 2) {
    const WorkEstimate two = inParallel(e, 2);
    CHECK(two.wallSeconds == doctest::Approx(0.01 + 2 + 8.0 / 2));
    CHECK(two.memoryBytes == 2 * 100 + 50);
  }
  e.runs = 1; // a single run has nothing to share a core with
  CHECK(inParallel(e, 4).memoryBytes == 150);
  CHECK(inParallel(e, 4).wallSeconds == doctest::Approx(0.01 + 10));
}
