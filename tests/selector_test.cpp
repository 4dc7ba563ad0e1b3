// The selector: rules as data, HCCL's documented picks, regret against a baseline.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "test_support.h"
#include "sim/config/cluster_config.h"
#include "sim/selector/selector.h"

using namespace collsim;
using namespace collsim::testing;
using namespace collsim::literals;

namespace {

Cluster atlas(int servers) { return atlasCluster(servers); }

} // namespace

TEST_CASE("the HCCL 910B rules pick ring for 2-3 servers and NHR from 4, pipelined from 1 MiB slices") {
  SelectorRules rules = loadSelectorRulesFile(source("configs/selector/hccl-910b.yaml"));
  // 64 KiB over 8 devices: 8 KiB slices, below the pipeline threshold.
  CHECK(choose(rules, Collective::AllReduce, 64_KiB, atlas(2)).algorithm == "hier:ring+ring");
  CHECK(choose(rules, Collective::AllReduce, 64_KiB, atlas(3)).algorithm == "hier:ring+ring");
  CHECK(choose(rules, Collective::AllReduce, 64_KiB, atlas(4)).algorithm == "hier:ring+nhr");
  CHECK(choose(rules, Collective::AllReduce, 64_KiB, atlas(8)).algorithm == "hier:ring+nhr");
  // 64 MiB: 8 MiB slices, pipelined.
  CHECK(choose(rules, Collective::AllReduce, 64_MiB, atlas(2)).algorithm == "hierpipe:ring+ring");
  CHECK(choose(rules, Collective::AllReduce, 64_MiB, atlas(4)).algorithm == "hierpipe:ring+nhr");
  // One server: the hardware decides (ring), recursive doubling up to 1 MiB.
  CHECK(choose(rules, Collective::AllReduce, 1_MiB, atlas(1)).algorithm == "rd");
  CHECK(choose(rules, Collective::AllReduce, 2_MiB, atlas(1)).algorithm == "ring");
  Choice c = choose(rules, Collective::AllReduce, 64_KiB, atlas(4));
  CHECK(c.rule == "nhr-from-4-servers");
  CHECK(c.source.find("60 us") != std::string::npos);
}

TEST_CASE("the HCCL 910A static rule: H-D for 8+ servers or powers of two, else ring") {
  SelectorRules rules = loadSelectorRulesFile(source("configs/selector/hccl-910a.yaml"));
  CHECK(choose(rules, Collective::AllReduce, 1_MiB, atlas(2)).algorithm == "hier:ring+rhd");
  CHECK(choose(rules, Collective::AllReduce, 1_MiB, atlas(3)).algorithm == "hier:ring+ring");
  CHECK(choose(rules, Collective::AllReduce, 1_MiB, atlas(6)).algorithm == "hier:ring+ring");
  CHECK(choose(rules, Collective::AllReduce, 1_MiB, atlas(9)).algorithm == "hier:ring+rhd");
}

TEST_CASE("without a matching rule the lowest closed-form cost decides") {
  SelectorRules none;
  for (int servers : {1, 2, 4}) {
    for (Bytes bytes : {Bytes(4096), 64_MiB}) {
      CAPTURE(servers);
      CAPTURE(bytes);
      Cluster cluster = atlas(servers);
      Choice c = choose(none, Collective::AllReduce, bytes, cluster);
      CHECK(c.rule == "fallback: closed-form");
      // The pick has the smallest closed-form cost of all candidates.
      CostModel m = costModelOf(cluster);
      double picked = findAlgorithm(Collective::AllReduce, c.algorithm)->cost(cluster.ranks(), double(bytes), m);
      for (const auto& name : candidates(Collective::AllReduce, cluster)) {
        CAPTURE(name);
        CHECK(picked <= findAlgorithm(Collective::AllReduce, name)->cost(cluster.ranks(), double(bytes), m));
      }
    }
  }
}

TEST_CASE("selector check catches a deliberately bad threshold against a baseline") {
  TempDir dir;
  std::filesystem::path baseline = dir / "baseline.json";
  std::string grid = source("tests/data/selector/small-grid.yaml");
  CliResult good = cli({"selector", "check", "--rules", source("configs/selector/hccl-910b.yaml"), "--grid", grid,
                  "--baseline", baseline.string(), "--update-baseline"});
  REQUIRE(good.status == 0);
  REQUIRE(std::filesystem::exists(baseline));
  CliResult same = cli({"selector", "check", "--rules", source("configs/selector/hccl-910b.yaml"), "--grid", grid,
                  "--baseline", baseline.string()});
  CHECK(same.status == 0);
  CHECK(same.out.find("0 regression(s)") != std::string::npos);
  CliResult bad = cli({"selector", "check", "--rules", source("tests/data/selector/bad-threshold.yaml"), "--grid", grid,
                 "--baseline", baseline.string()});
  CHECK(bad.status == 1);
  // Recursive doubling of 64 MiB on one server: the point is named.
  CHECK(bad.out.find("REGRESSION allreduce 64MiB atlas-2x8 servers=1") != std::string::npos);
}

TEST_CASE("select explains its choice with every candidate's simulated time") {
  CliResult r = cli({"select", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--op", "allreduce", "--bytes", "64MiB",
               "--rules", source("configs/selector/hccl-910b.yaml"), "--explain"});
  REQUIRE(r.status == 0);
  CHECK(r.out.rfind("hierpipe:ring+ring\n", 0) == 0);
  CHECK(r.out.find("<- picked") != std::string::npos);
  CHECK(r.out.find("pipeline-2-3-servers-ring") != std::string::npos);
}

TEST_CASE("bad selector rules are errors with their line") {
  CliResult r = cli({"selector", "check", "--rules", source("tests/data/selector/unknown-condition.yaml"), "--grid",
               source("tests/data/selector/small-grid.yaml")});
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown-condition.yaml:4:") != std::string::npos);
  CHECK(r.err.find("srevers") != std::string::npos);
}

TEST_CASE("derive finds the hand-derived crossover between ring and recursive doubling") {
  // 8 devices on a full HCCS mesh (alpha = 1 us, B = 12 GB/s), no reduction
  // cost, every transfer on its own link:
  //   ring: 2(p-1)(a + n/(pB)) = 14 a + 14 n / (8B)
  //   rd:   log2(p)(a + n/B)   =  3 a +  3 n / B
  // equal at n* = 11 a B / (3 - 14/8) = 8.8 a B = 105600 bytes.
  TempDir dir;
  std::filesystem::path out = dir / "derived.yaml";
  CliResult r = cli({"selector", "derive", "--grid", source("tests/data/selector/mesh-grid.yaml"), "--out", out.string(),
               "--candidates", "ring", "--candidates", "rd"});
  REQUIRE(r.status == 0);
  SelectorRules rules = loadSelectorRulesFile(out.string());
  REQUIRE(rules.rules.size() == 2);
  CHECK(rules.rules[0].algorithm == "rd");
  CHECK(rules.rules[1].algorithm == "ring");
  double crossover = rules.rules[1].bytes->min;
  CHECK(crossover > 105600 * 0.98);
  CHECK(crossover < 105600 * 1.02);
  // check scores the derived file like any other.
  CliResult scored = cli({"selector", "check", "--rules", out.string(), "--grid", source("tests/data/selector/mesh-grid.yaml")});
  CHECK(scored.status == 0);
}

TEST_CASE("derive gives server ranges: each count between the grid's goes to the nearer one, without gaps") {
  TempDir dir;
  std::filesystem::path grid = dir / "grid.yaml", out = dir / "derived.yaml";
  std::ofstream(grid) << "name: servers-grid\nops: [allreduce]\nsizes: [64KiB, 64MiB]\nclusters:\n  - base: "
                      << source("configs/clusters/atlas-2x8.yaml") << "\n    servers: [1, 2, 8]\n";
  CliResult r = cli({"selector", "derive", "--grid", grid.string(), "--out", out.string(), "--candidates", "ring",
                     "--candidates", "mesh", "--candidates", "hier:ring+nhr"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  SelectorRules rules = loadSelectorRulesFile(out.string());
  REQUIRE(!rules.rules.empty());
  // Server counts 1..100 each meet exactly one rule at every size, and the
  // grid's own counts take the winners derived for them: 1 -> [1,1], 2 ->
  // [2, floor(sqrt(16)) = 4], 8 -> [5, ...) (or merged with a neighbour that
  // chose alike).
  for (int servers = 1; servers <= 100; ++servers)
    for (Bytes bytes : {Bytes(1), Bytes(64_KiB), Bytes(1_MiB), Bytes(64_MiB), Bytes(1_GiB)}) {
      SelectionContext c;
      c.op = Collective::AllReduce;
      c.bytes = bytes;
      c.servers = servers;
      c.devices = 8;
      c.ranks = 8 * servers;
      c.hccs = HccsShape::Ring;
      c.fabric = FabricKind::Switch;
      int matching = 0;
      for (const Rule& rule : rules.rules) matching += rule.matches(c) ? 1 : 0;
      CAPTURE(servers);
      CAPTURE(bytes);
      CHECK(matching == 1);
    }
  auto covering = [&](int servers) {
    std::vector<std::string> names;
    for (const Rule& rule : rules.rules)
      if (rule.servers->contains(servers)) names.push_back(rule.name);
    return names;
  };
  for (const auto& name : covering(3)) CHECK(contains(name, "servers=2"));
  for (const auto& name : covering(4)) CHECK(contains(name, "servers=2"));
  for (const auto& name : covering(5)) CHECK(!contains(name, "servers=2 "));
  for (const auto& name : covering(5)) CHECK(!contains(name, "servers=1 "));
  CHECK(rules.derivedFromGrid == "servers-grid");

  // Checked on its own grid, check warns; on another grid it does not.
  CliResult own = cli({"selector", "check", "--rules", out.string(), "--grid", grid.string()});
  CHECK(own.status == 0);
  CHECK(contains(own.err, "was derived on this grid (servers-grid)"));
  CliResult other = cli({"selector", "check", "--rules", out.string(), "--grid", source("tests/data/selector/small-grid.yaml")});
  CHECK(other.status == 0);
  CHECK(!contains(other.err, "was derived on this grid"));
}
