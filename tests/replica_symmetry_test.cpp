// A few DP replicas simulated for all (sim/network/rank_symmetry.h,
// sim/workload/replica_symmetry.h) against the full simulation: the rank
// arithmetic by hand, the cluster's fold, which collectives move along with
// which shift, and equal steps on every kind of layout and cluster where
// the symmetry holds (the full run, with its reason, where it does not).
#include <doctest/doctest.h>

#include <fstream>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "test_support.h"

#include "algorithms/core/registry.h"
#include "sim/config/cluster_config.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/step_options.h"
#include "sim/workload/replica_symmetry.h"
#include "sim/workload/step_simulation.h"

using namespace collsim;
using collsim::testing::contains;
using collsim::testing::source;
using Law = RankSymmetry::Law;

TEST_CASE("a replica shift moves ranks by whole replicas, and xor pairs replicas as halving-doubling does") {
  // tp 2 x dp 4 x pp 2 in the order tp-dp-pp: rank = tp + 2 dp + 8 pp.
  RankSymmetry ring(16, 2, 4, 1, Law::Cyclic);
  CHECK(ring.copies() == 4);
  CHECK(ring.representatives() == 4);
  // The representatives are dp 0 of each (tp, pp): ranks 0, 1, 8, 9.
  CHECK(std::vector{ring.representativeAt(0), ring.representativeAt(1), ring.representativeAt(2),
                    ring.representativeAt(3)} == std::vector{0, 1, 8, 9});
  CHECK(ring.representativeIndex(9) == 3);
  CHECK(ring.representative(13) == 9); // tp 1, dp 2, pp 1 -> dp 0
  CHECK(ring.isRepresentative(9));
  CHECK_FALSE(ring.isRepresentative(13));
  // 13 has dp 2: the element d -> d + 2 takes it to dp 0 and rank 15 (dp 3)
  // to dp 1, rank 11.
  CHECK(ring.alongWith(13, 15) == 11);
  CHECK(ring.generators() == 1);
  CHECK(ring.generate(0, 7) == 1); // dp 3 -> 0

  RankSymmetry rhd(16, 2, 4, 1, Law::Xor);
  CHECK(rhd.generators() == 2); // xor 1, xor 2
  CHECK(rhd.generate(1, 3) == 7); // dp 1 -> 3
  CHECK(rhd.alongWith(13, 15) == 11); // xor 2: dp 3 -> 1
  CHECK(rhd.alongWith(11, 13) == 15); // 11 has dp 1, xor 1: dp 2 -> 3

  // Two replicas a unit: 2 of 4 stand for all.
  RankSymmetry pairs(16, 2, 4, 2, Law::Cyclic);
  CHECK(pairs.copies() == 2);
  CHECK(pairs.representative(15) == 11);
  CHECK_THROWS_AS(RankSymmetry(16, 2, 4, 3, Law::Cyclic), std::invalid_argument);
  CHECK_THROWS_AS(RankSymmetry(24, 2, 6, 2, Law::Xor), std::invalid_argument);
}

TEST_CASE("replicas and TP positions move together: two digits, their product's classes") {
  // tp 4 x dp 2 x pp 2 in the order tp-dp-pp: rank = t + 4 d + 8 p; t moves
  // by 1 (cyclic), d by xor 1.
  RankSymmetry both(16, {{1, 4, 1, Law::Cyclic, "TP positions", 't'}, {4, 2, 1, Law::Xor}});
  CHECK(both.copies() == 8);
  CHECK(both.representatives() == 2); // rank 0 and rank 8 (t 0, d 0 of each stage)
  CHECK(both.representativeAt(0) == 0);
  CHECK(both.representativeAt(1) == 8);
  CHECK(both.representativeIndex(8) == 1);
  CHECK(both.representative(15) == 8); // t 3, d 1, p 1
  CHECK_FALSE(both.isRepresentative(1));
  // 7 is t 3, d 1: the element t -> t + 1, d -> d xor 1 takes it to 0, and
  // 2 (t 2, d 0) to t 3, d 1: 7.
  CHECK(both.alongWith(7, 2) == 7);
  CHECK(both.generators() == 2); // t + 1, d xor 1
  CHECK(both.generate(0, 3) == 0);
  CHECK(both.generate(1, 3) == 7);
  CHECK(both.text() == "1 of 2 replicas stands for all (d -> d xor 1); 1 of 4 TP positions stands for all (t -> t + 1)");
  // Every rank's representative has the index its class's members share,
  // and each class has copies() members.
  std::vector<int> members(2, 0);
  for (int r = 0; r < 16; ++r) ++members[std::size_t(both.representativeIndex(both.representative(r)))];
  CHECK(members == std::vector{8, 8});
  // Digits that overlap are refused.
  CHECK_THROWS_AS(RankSymmetry(16, {{1, 4, 1, Law::Cyclic}, {2, 2, 1, Law::Cyclic}}), std::invalid_argument);
}

TEST_CASE("a TP shift moves each device's links and NIC onto the next device's, inside its server") {
  // 2 Atlas 800T A2 servers, tp 8 x dp 2: t -> t + 1 on the HCCS mesh.
  Cluster c = loadClusterFile(source("configs/clusters/atlas-800t-a2-8.yaml"), {"servers=2"}).cluster;
  RankSymmetry t(16, {{1, 8, 1, Law::Cyclic, "TP positions", 't'}});
  std::string why;
  auto fold = foldChannels(c, t, why);
  REQUIRE(fold);
  // Every channel stands with 7 others: the mesh's, the NICs' and their
  // switch ports' (both servers' own: the shift keeps servers in place).
  std::map<std::uint32_t, int> members;
  for (std::uint32_t f : *fold) ++members[f];
  for (const auto& [representative, count] : members) CHECK(count == 8);
  // Only t -> t + 4 moves two HCCS meshes of 4 onto each other.
  Cluster halves = loadClusterFile(source("configs/clusters/hccs-2x4-8.yaml"), {}).cluster;
  CHECK_FALSE(foldChannels(halves, RankSymmetry(8, {{1, 8, 1, Law::Cyclic, "TP positions", 't'}}), why));
  CHECK(contains(why, "(a link of another speed, or to another switch)"));
  CHECK(foldChannels(halves, RankSymmetry(8, {{1, 8, 4, Law::Cyclic, "TP positions", 't'}}), why));
}

TEST_CASE("a cluster of alike servers on one switch folds onto the first replica's links") {
  // 4 Atlas 800T A2 servers (an 8-NPU HCCS mesh, a NIC per NPU, one switch);
  // tp 8 x dp 4: a replica per server.
  Cluster c = loadClusterFile(source("configs/clusters/atlas-800t-a2-8.yaml"), {"servers=4"}).cluster;
  RankSymmetry s(32, 8, 4, 1, Law::Cyclic);
  std::string why;
  auto fold = foldChannels(c, s, why);
  REQUIRE(fold);
  CHECK(why.empty());
  // Every channel lands on a server 0 channel, 4 channels on each.
  std::set<std::uint32_t> representatives(fold->begin(), fold->end());
  CHECK(representatives.size() * 4 == fold->size());
  auto nodeNamed = [&](const std::string& name) {
    for (std::size_t n = 0; n < c.nodes.size(); ++n)
      if (c.nodes[n].name == name) return int(n);
    FAIL("no node " << name);
    return -1;
  };
  auto channel = [&](int a, int b) {
    for (std::size_t i = 0; i < c.links.size(); ++i) {
      if (c.links[i].a == a && c.links[i].b == b) return std::uint32_t(2 * i);
      if (c.links[i].a == b && c.links[i].b == a) return std::uint32_t(2 * i + 1);
    }
    FAIL("no link");
    return 0u;
  };
  const int dev = c.rankNode[17], devPeer = c.rankNode[18], rep = c.rankNode[1], repPeer = c.rankNode[2];
  CHECK((*fold)[channel(dev, devPeer)] == channel(rep, repPeer)); // HCCS inside server 2 -> inside server 0
  for (const ClusterLink& l : c.links) { // a server's switch port -> server 0's same port, both ways
    if (l.a != dev && l.b != dev) continue;
    if (c.nodes[std::size_t(l.a == dev ? l.b : l.a)].kind != NodeKind::Nic) continue;
    const int nic = l.a == dev ? l.b : l.a;
    for (const ClusterLink& up : c.links) {
      if ((up.a != nic && up.b != nic) || up.a == dev || up.b == dev) continue;
      const int sw = up.a == nic ? up.b : up.a;
      CHECK(c.nodes[std::size_t(sw)].kind == NodeKind::Switch);
      std::uint32_t folded = (*fold)[channel(sw, nic)];
      CHECK(c.links[folded / 2].a != nic);
      CHECK((c.links[folded / 2].a == sw || c.links[folded / 2].b == sw));
    }
  }
  CHECK(nodeNamed(c.nodes[std::size_t(rep)].name) == rep);

  SUBCASE("a link slower than its like in another replica breaks it") {
    for (ClusterLink& l : c.links)
      if (l.a == dev || l.b == dev) l.params.bandwidth /= 2;
    CHECK_FALSE(foldChannels(c, s, why));
    CHECK(contains(why, "(a link of another speed, or to another switch)"));
  }
  SUBCASE("replicas of half a server move devices between servers") {
    RankSymmetry halves(32, 4, 8, 1, Law::Cyclic); // tp 4 x dp 8
    CHECK_FALSE(foldChannels(c, halves, why));
    CHECK(contains(why, "whole servers"));
    CHECK(foldChannels(c, RankSymmetry(32, 4, 8, 2, Law::Cyclic), why)); // two replicas a server
  }
  SUBCASE("a leaf-spine fabric's servers hang off different leaves") {
    Cluster ls = loadClusterFile(source("configs/clusters/atlas-16x8-leafspine.yaml"), {}).cluster;
    CHECK_FALSE(foldChannels(ls, RankSymmetry(128, 8, 16, 1, Law::Cyclic), why));
    CHECK(contains(why, "(a link of another speed, or to another switch)"));
  }
  SUBCASE("a rail fabric's replicas meet on their rails, off the spines") {
    Cluster rail = loadClusterFile(source("configs/clusters/atlas-512x8-rail.yaml"), {"servers=4"}).cluster;
    auto railFold = foldChannels(rail, s, why);
    REQUIRE(railFold);
    // A rail-to-spine link stands for itself, marked: a route over it breaks the symmetry.
    std::size_t fixed = 0;
    for (std::size_t ch = 0; ch < railFold->size(); ++ch) {
      if (!((*railFold)[ch] & kFixedChannel)) continue;
      ++fixed;
      CHECK(((*railFold)[ch] & ~kFixedChannel) == ch);
    }
    CHECK(fixed == 2 * 8 * 16); // 8 rails x 16 spines, both ways
  }
}

TEST_CASE("a ring moves along with d -> d + 1 and recursive halving-doubling with d -> d xor 1, 2 or 4 only") {
  CollectiveSpec spec{Collective::AllReduce, 8, 8 * 1024, 4};
  std::vector<int> members{0, 1, 2, 3, 4, 5, 6, 7};
  SchedulePtr ring = buildSchedule(*findAlgorithm(Collective::AllReduce, "ring"), spec);
  SchedulePtr rhd = buildSchedule(*findAlgorithm(Collective::AllReduce, "rhd"), spec);
  CHECK(movesAlong(*ring, members, RankSymmetry(8, 1, 8, 1, Law::Cyclic)));
  CHECK(movesAlong(*rhd, members, RankSymmetry(8, 1, 8, 1, Law::Xor)));
  CHECK_FALSE(movesAlong(*rhd, members, RankSymmetry(8, 1, 8, 1, Law::Cyclic)));
  CHECK_FALSE(movesAlong(*ring, members, RankSymmetry(8, 1, 8, 1, Law::Xor)));
  // Each stream is held, not the first alone: dbtree's trees have roots (its
  // first stream alone looked alike, and a folded step of it deadlocked).
  SchedulePtr dbtree = buildSchedule(*findAlgorithm(Collective::AllReduce, "dbtree"), spec);
  REQUIRE(dbtree->streamCount() == 2);
  CHECK_FALSE(movesAlong(*dbtree, members, RankSymmetry(8, 1, 8, 1, Law::Cyclic)));
  // 3 elements over: some blocks have an element more, alike within one
  // element per member, as the step checks them.
  spec.count += 3;
  for (Collective op : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather}) {
    spec.op = op;
    CAPTURE(collectiveName(op));
    ring = buildSchedule(*findAlgorithm(op, "ring"), spec);
    rhd = buildSchedule(*findAlgorithm(op, "rhd"), spec);
    CHECK_FALSE(movesAlong(*ring, members, RankSymmetry(8, 1, 8, 1, Law::Cyclic)));
    CHECK(movesAlong(*ring, members, RankSymmetry(8, 1, 8, 1, Law::Cyclic), 4 * 8));
    CHECK(movesAlong(*rhd, members, RankSymmetry(8, 1, 8, 1, Law::Xor), 4 * 8));
    CHECK_FALSE(movesAlong(*rhd, members, RankSymmetry(8, 1, 8, 1, Law::Cyclic), 4 * 8));
    CHECK(movesAlongByConstruction("ring", 8, Law::Cyclic));
    CHECK(movesAlongByConstruction("rhd", 8, Law::Xor));
    CHECK_FALSE(movesAlongByConstruction("rhd", 6, Law::Xor));
  }
  // Hierarchical, 4 members a server on 8 servers: moving whole servers
  // moves the level between them along.
  CollectiveSpec hier{Collective::AllReduce, 32, 32 * 1024 + 7, 4, 0, 4};
  std::vector<int> group(32);
  for (int i = 0; i < 32; ++i) group[std::size_t(i)] = i;
  for (const auto& hierarchical : {std::pair{"hier:mesh+rhd", Law::Xor}, std::pair{"hier:ring+ring", Law::Cyclic}}) {
    const std::string name = hierarchical.first;
    const Law law = hierarchical.second;
    CAPTURE(name);
    CHECK(movesAlongByConstruction(name, 32, law));
    CHECK(movesAlong(*buildSchedule(*findAlgorithm(Collective::AllReduce, name), hier), group,
                     RankSymmetry(32, 1, 32, 4, law), 4 * 32));
    CHECK_FALSE(movesAlong(*buildSchedule(*findAlgorithm(Collective::AllReduce, name), hier), group,
                           RankSymmetry(32, 1, 32, 1, law), 4 * 32)); // members of one server are not alike
  }
  // Past kLargestGroupChecked members the step trusts these two: check them there.
  const int n = kLargestGroupChecked * 2;
  std::vector<int> many(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) many[std::size_t(i)] = i;
  CollectiveSpec large{Collective::ReduceScatter, n, std::uint64_t(n) * 64 + 5, 2};
  CHECK(movesAlong(*buildSchedule(*findAlgorithm(Collective::ReduceScatter, "ring"), large), many,
                   RankSymmetry(n, 1, n, 1, Law::Cyclic), 2 * std::uint64_t(n)));
  CHECK(movesAlong(*buildSchedule(*findAlgorithm(Collective::AllGather, "rhd"), large), many,
                   RankSymmetry(n, 1, n, 4, Law::Xor), 2 * std::uint64_t(n)));
}

namespace {

// A small model timed by its operations (fused attention, so that cp can
// run), on `cluster` with `parallel` and `extra` scenario keys.
Scenario stepScenario(const std::string& cluster, const std::string& parallel, const std::string& extra = "",
                      int servers = 0, const std::string& experts = "") {
  std::string yaml = "name: symmetry\ncluster: " + source("configs/clusters/" + cluster) + "\n" + extra +
                     "training:\n"
                     "  model: {name: tiny, transformer: {layers: 4, hidden: 512, heads: 8, ffn: 2048, vocabulary: 1000,"
                     " sequence: 512, attention: flash" + experts + "}, precision: {weights: 2, master_weights: 4,"
                     " gradients: 4, optimizer_state: 8}, micro_batch: 1}\n"
                     "  bucket: 2MiB\n"
                     "  parallel: " + parallel + "\n";
  std::vector<std::string> overrides;
  if (servers > 0) overrides.push_back("cluster.servers=" + std::to_string(servers));
  return loadScenarioText(yaml, "symmetry.yaml", ".", overrides);
}

std::pair<StepResult, StepResult> withAndWithout(const Scenario& s) {
  StepOptions o = stepOptionsOf(s, s.algorithms.front(), s.simulation.seed, nullptr);
  StepResult folded = simulateTrainingStep(s.cluster, *s.training, o);
  o.symmetry = false;
  return {folded, simulateTrainingStep(s.cluster, *s.training, o)};
}

} // namespace

TEST_CASE("a step through its representatives takes as long as the full step, part by part, on every layout") {
  struct Case {
    const char* what;
    std::string cluster, parallel, extra;
    int simulated; // devices of the folded run
    std::string experts = "";
    int servers = 4;
  };
  const std::string atlas = "atlas-800t-a2-8.yaml", h100 = "dgx-h100-8.yaml";
  // Inside a server of alike devices the TP positions fold too (t -> t + 1
  // on a mesh or an NVSwitch), on top of the replicas.
  const Case cases[] = {
      // 4 servers, a replica each: HCCL's rule picks halving-doubling (xor).
      {"tp8 dp4 zero1, algo auto", atlas, "{tp: 8, zero: 1}", "algo: auto\n", 1},
      {"tp8 dp4 zero1, ring", atlas, "{tp: 8, zero: 1}", "algo: ring\n", 1},
      {"tp8 pp2 dp2 1f1b", atlas, "{tp: 8, pp: 2, micro_batches: 4}", "algo: ring\n", 2},
      {"tp8 dp4 on a rail fabric", "atlas-512x8-rail.yaml", "{tp: 8, zero: 1}", "algo: ring\n", 1},
      {"tp4 pp2 dp4: two replicas a server", atlas, "{tp: 4, pp: 2, micro_batches: 4, sequence_parallel: true}",
       "algo: ring\n", 4},
      {"tp8 pp2 interleaved, zero 3", atlas,
       "{tp: 8, pp: 2, zero: 3, micro_batches: 4, schedule: interleaved, virtual_stages: 2}", "algo: ring\n", 2},
      {"tp4 cp2 dp4", atlas, "{tp: 4, cp: 2, zero: 1}", "algo: ring\n", 2},
      // 4 experts, 2 a token, over ep 2 of the 4 replicas: two replicas a unit.
      {"tp8 dp4 ep2, MoE", atlas, "{tp: 8, ep: 2, zero: 1, expert_imbalance: 1.2}", "algo: ring\n", 2,
       ", experts: 4, top_k: 2"},
      // NCCL on H100 (NVLS inside a server, its SMs taken from compute).
      {"H100 tp8 pp2 dp2, the library's algorithms", h100, "{tp: 8, pp: 2, zero: 1, micro_batches: 4}",
       "algo: auto\n", 2},
      // One server. Two HCCS meshes of 4 joined over PCIe: only t -> t + 4
      // (mesh onto mesh) moves it onto itself. A ring of 8: t -> t + 1.
      {"tp8 on two meshes of 4", "hccs-2x4-8.yaml", "{tp: 8}", "algo: ring\n", 4, "", 1},
      {"tp8 on an HCCS ring", "hccs-ring-8.yaml", "{tp: 8}", "algo: ring\n", 1, "", 1},
  };
  for (const Case& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    Scenario s = stepScenario(c.cluster, c.parallel, c.extra + "simulation: {segment: 256KiB}\n", c.servers, c.experts);
    const auto runs = withAndWithout(s);
    const StepResult &folded = runs.first, &full = runs.second;
    CAPTURE(folded.symmetry);
    CHECK(full.simulatedRanks == s.cluster.ranks());
    CHECK(folded.simulatedRanks == c.simulated);
    CHECK(double(folded.iteration) == doctest::Approx(double(full.iteration)).epsilon(1e-6));
    // The slowest device's compute and TP waits are its own; how its other
    // waits split between pipeline, bubble and gradients depends, in the
    // full run too, on which of two messages due at the same picosecond the
    // engine takes first (under ZeRO 3 and interleaving, replica 0 and 1
    // of the full run split them 10 ms apart), so only their sum is held.
    const StepBreakdown &a = folded.breakdown, &b = full.breakdown;
    CHECK(a.compute == b.compute);
    CHECK(a.tensorParallel == b.tensorParallel);
    CHECK(double(a.pipeline + a.bubble + a.dataParallel + a.contextParallel) ==
          doctest::Approx(double(b.pipeline + b.bubble + b.dataParallel + b.contextParallel)).epsilon(1e-6));
    // The time some gradient collective ran, over all devices, moves with
    // that split too (0.7 % in that case).
    CHECK(double(folded.communication) == doctest::Approx(double(full.communication)).epsilon(1e-2));
    // Bytes and every link's load are the whole run's, on fewer events.
    CHECK(folded.bytesSent == full.bytesSent);
    CHECK(folded.network.messages == full.network.messages);
    REQUIRE(folded.network.links.size() == full.network.links.size());
    for (std::size_t i = 0; i < full.network.links.size(); ++i) {
      CHECK(folded.network.links[i].payload == full.network.links[i].payload);
      CHECK(folded.network.links[i].meanUtilization == doctest::Approx(full.network.links[i].meanUtilization));
    }
    CHECK(folded.events * 2 <= full.events);
    // The estimate counts the fast model's events as the run spends them
    // (parallel_step.cpp, walkParallelStep), folded and in full: 1.00-1.15x
    // on these layouts (the walk's rank of each stage stands for all of
    // its stage's ranks). The events counted in place of fitted took the
    // 405 B step on 1,024 H100s from 0.71x to 1.01x.
    StepOptions o = stepOptionsOf(s, s.algorithms.front(), s.simulation.seed, nullptr);
    const double foldedEstimate = estimateTrainingStep(s.cluster, *s.training, o).events;
    o.symmetry = false;
    const double fullEstimate = estimateTrainingStep(s.cluster, *s.training, o).events;
    CHECK(foldedEstimate == doctest::Approx(double(folded.events)).epsilon(0.2));
    CHECK(fullEstimate == doctest::Approx(double(full.events)).epsilon(0.2));
  }
}

TEST_CASE("where the symmetry breaks the step runs in full and says why") {
  // A leaf-spine fabric: its servers hang off different leaves, so the
  // replicas run in full; and the TP positions' gradient rings cross the
  // spines by an ECMP choice, which the fold finds before the run.
  Scenario s = stepScenario("atlas-16x8-leafspine.yaml", "{tp: 8, zero: 1}", "algo: ring\n");
  const auto runs = withAndWithout(s);
  const StepResult &folded = runs.first, &full = runs.second;
  CHECK(folded.simulatedRanks == 128);
  CHECK(contains(folded.symmetry, "to another switch"));
  CHECK(folded.iteration == full.iteration);
  CHECK(full.symmetry == "simulation.symmetry is off");
  // On a rail fabric with two replicas a server, a DP ring's hop from NPU 4
  // of one server to NPU 0 of the next changes rails over one of 16 spines
  // (an ECMP choice): the folded run meets that route, stops, and the step
  // runs in full.
  Scenario rail = stepScenario("atlas-512x8-rail.yaml", "{tp: 4, zero: 1}", "algo: ring\n", 4);
  const auto railRuns = withAndWithout(rail);
  CHECK(railRuns.first.simulatedRanks == 32);
  CAPTURE(railRuns.first.symmetry);
  CHECK(contains(railRuns.first.symmetry, "a route has a choice of paths"));
  CHECK(railRuns.first.iteration == railRuns.second.iteration);
  // The packet model.
  Scenario packet = stepScenario("atlas-800t-a2-8.yaml", "{tp: 8, zero: 1}", "simulation: {fidelity: packet}\n", 2);
  StepResult p = simulateTrainingStep(packet.cluster, *packet.training,
                                      stepOptionsOf(packet, packet.algorithms.front(), 1, nullptr));
  CHECK(p.simulatedRanks == 16);
  CHECK(contains(p.symmetry, "packet model"));
}

TEST_CASE("plain data parallelism folds as a layout does: the same step on fewer devices, and says so") {
  // No parallel: section: every device a replica (tp = pp = 1), its
  // gradients reduced by ring over all 32, on 4 symmetric servers.
  const std::string yaml = "name: plain\ncluster: " + source("configs/clusters/atlas-800t-a2-8.yaml") +
                           "\nalgo: ring\nsimulation: {segment: 256KiB}\n"
                           "training:\n  model: {name: tiny, transformer: {layers: 4, hidden: 512, heads: 8, ffn: 2048,"
                           " vocabulary: 1000, sequence: 512, attention: flash}, precision: {weights: 2, master_weights: 4,"
                           " gradients: 4, optimizer_state: 8}, micro_batch: 1}\n  bucket: 2MiB\n";
  Scenario s = loadScenarioText(yaml, "plain.yaml", ".", {"cluster.servers=4"});
  const auto [folded, full] = withAndWithout(s);
  CHECK(!folded.layout);
  CHECK(full.simulatedRanks == 32);
  CHECK(folded.simulatedRanks < 32);
  CHECK(folded.iteration == full.iteration);
  CHECK(folded.bytesSent == full.bytesSent);
  CHECK(folded.buckets.size() == full.buckets.size());
  CHECK(folded.events * 3 < full.events);
  collsim::testing::TempDir dir;
  const std::string path = dir / "plain.yaml";
  std::ofstream(path) << yaml;
  auto text = collsim::testing::cli({"run", path, "--set", "cluster.servers=4"});
  REQUIRE(text.status == 0);
  CHECK(contains(text.out, "# alike devices simulated once, exactly (simulation.symmetry: off runs them all):\n"
                           "#   ring: " + std::to_string(folded.simulatedRanks) + " of 32 devices simulated"));
}

TEST_CASE("collsim run says which points ran folded, and simulation.symmetry off runs every device to the same step") {
  const std::string scenario = source("tests/data/training/llama3-8b-tp8-dp8-folded.yaml");
  auto folded = collsim::testing::cli({"run", scenario, "--format", "json"});
  auto full = collsim::testing::cli({"run", scenario, "--set", "simulation.symmetry=off", "--format", "json"});
  REQUIRE(folded.status == 0);
  REQUIRE(full.status == 0);
  const auto a = nlohmann::json::parse(folded.out)["points"][0], b = nlohmann::json::parse(full.out)["points"][0];
  CHECK(a["simulated_devices"] == 1);
  CHECK(a["symmetry"] == "1 of 8 replicas stands for all (d -> d xor 1); 1 of 8 TP positions stands for all (t -> t + 1)");
  CHECK(b["simulated_devices"] == 64);
  CHECK(b["symmetry"] == "simulation.symmetry is off");
  CHECK(a["step_us"] == b["step_us"]);
  CHECK(a["bytes_sent"] == b["bytes_sent"]);
  CHECK(a["events"].get<double>() * 4 < b["events"].get<double>());
  auto text = collsim::testing::cli({"run", scenario});
  CHECK(contains(text.out, "# alike devices simulated once, exactly (simulation.symmetry: off runs them all):\n"
                           "#   auto: rhd: 1 of 64 devices simulated, 1 of 8 replicas stands for all (d -> d xor 1); "
                           "1 of 8 TP positions stands for all (t -> t + 1)"));
  auto bad = collsim::testing::cli({"run", scenario, "--set", "simulation.symmetry=maybe"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "simulation.symmetry: 'maybe' is not one of: on, off"));
}
