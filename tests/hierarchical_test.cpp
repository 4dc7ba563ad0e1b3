// Multi-server clusters and hierarchical AllReduce.
#include <doctest/doctest.h>

#include <map>

#include "relative_error.h"
#include "test_support.h"

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/transports/threads/run_threads.h"
#include "sim/executor/schedule_executor.h"
#include "sim/network/link_network.h"
#include "sim/network/routing.h"
#include "sim/run/simulate.h"
#include "topologies/multi_server.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

ClusterParams atlas(int servers, HccsShape shape) {
  ClusterParams c;
  c.servers = servers;
  c.server.devices = 8;
  c.server.shape = shape;
  c.server.hccs = {12_GBps, 1_us};
  c.nic.roce = {100_Gbps, 1_us};
  return c;
}

// Bytes over the cluster's RoCE links (both directions) of `algo` on
// `spec`, and when it ends.
std::pair<Bytes, Time> roceBytes(const Cluster& c, const std::string& algo, const CollectiveSpec& spec) {
  AlgorithmEntry entry = *findAlgorithm(spec.op, algo);
  EventEngine engine;
  LinkNetwork net(engine, c, 4096, 1_MiB);
  SchedulePtr s = buildSchedule(entry, spec);
  ScheduleExecutor ex(engine, net, c, *s);
  ex.run();
  Bytes roce = 0;
  for (std::size_t l = 0; l < c.links.size(); ++l)
    if (c.links[l].tier == LinkTier::ScaleOut) roce += net.channelStats()[2 * l].bytes + net.channelStats()[2 * l + 1].bytes;
  return {roce, engine.now()};
}

double seconds(const Cluster& c, const std::string& algo, Bytes n, Bytes segment = 4_KiB) {
  AlgorithmEntry entry = *findAlgorithm(Collective::AllReduce, algo);
  RunRequest req{Collective::AllReduce, &entry, DataType::Int8, n, segment, true};
  return simulateCollective(c, req).execution.finish * 1e-12;
}

} // namespace

TEST_CASE("hierarchical AllReduce on 2x8 matches its hand-derived closed form") {
  // HCCS: a_h = 1 us, B_h = 12 GB/s. RoCE: device -> switch -> device, two
  // 1 us links: a_r = 2 us, B_r = 12.5 GB/s; 4 KiB segments add one segment
  // of store and forward (0.33 us) per RoCE message, well under 1 %.
  const double ah = 1e-6, bh = 1 / 12e9, ar = 2e-6, br = 1 / 12.5e9, n = double(64_MiB);
  SUBCASE("ring inside, RHD between: 7 + 7 ring steps of n/8, and RHD on 2 servers = 2 steps of n/16") {
    double closed = 14 * (ah + n / 8 * bh) + 2 * (ar + n / 16 * br);
    CHECK_WITHIN(seconds(buildCluster(atlas(2, HccsShape::Ring)), "hier:ring+rhd", 64_MiB), closed, 0.01);
  }
  SUBCASE("mesh inside, ring between: one mesh step of n/8 each way, a 2-rank ring = 2 steps of n/16") {
    double closed = 2 * (ah + n / 8 * bh) + 2 * (ar + n / 16 * br);
    CHECK_WITHIN(seconds(buildCluster(atlas(2, HccsShape::Mesh)), "hier:mesh+ring", 64_MiB), closed, 0.01);
  }
}

TEST_CASE("hierarchical schedules are correct symbolically and on real data") {
  for (auto layout : {std::pair{3, 4}, std::pair{5, 2}, std::pair{2, 8}, std::pair{4, 3}}) {
    const int servers = layout.first, devices = layout.second; // plain names: CAPTURE cannot take bindings (clang 14)
    for (const char* name : {"hier:ring+ring", "hier:ring+rhd", "hier:mesh+nhr", "hier:mesh+nb", "hierpipe:ring+rhd",
                             "level0:NA;level1:H-D_R", "hier:ring+tree", "hierpipe:ring+tree", "hierpipe:mesh+dbtree"}) {
      AlgorithmEntry algo = *findAlgorithm(Collective::AllReduce, name);
      CollectiveSpec spec{Collective::AllReduce, servers * devices, 1001, 4, 0, devices};
      CAPTURE(servers);
      CAPTURE(devices);
      CAPTURE(std::string(name));
      CheckReport check = checkSchedule(*buildSchedule(algo, spec), spec);
      CHECK_MESSAGE(check.ok(), check.summary());
      RealRunReport real = runWithThreads(*buildSchedule(algo, spec), spec, RunOptions{});
      CHECK_MESSAGE(real.ok(), real.firstWrong);
    }
  }
}

TEST_CASE("hierarchical ReduceScatter, AllGather and Broadcast are correct for every level pair") {
  const char* both[] = {"ring", "mesh", "rhd", "nhr", "nb"};
  for (auto layout : {std::pair{3, 4}, std::pair{5, 2}, std::pair{2, 8}, std::pair{4, 3}}) {
    const int servers = layout.first, devices = layout.second; // plain names: CAPTURE cannot take bindings (clang 14)
    for (Collective op : {Collective::ReduceScatter, Collective::AllGather, Collective::Broadcast}) {
      std::vector<std::string> levels = op == Collective::Broadcast ? std::vector<std::string>{"ring"}
                                                                    : std::vector<std::string>(std::begin(both), std::end(both));
      for (const auto& intra : levels) {
        for (const auto& inter : levels) {
          std::string name = "hier:" + intra + "+" + inter;
          AlgorithmEntry algo = *findAlgorithm(op, name);
          int p = servers * devices;
          CollectiveSpec spec{op, p, std::uint64_t(3 * p + 2), 4, p - 2, devices}; // root: not device 0
          std::string coll = collectiveName(op);
          CAPTURE(coll);
          CAPTURE(name);
          CAPTURE(servers);
          CAPTURE(devices);
          CheckReport check = checkSchedule(*buildSchedule(algo, spec), spec);
          CHECK_MESSAGE(check.ok(), check.summary());
          RealRunReport real = runWithThreads(*buildSchedule(algo, spec), spec, RunOptions{});
          CHECK_MESSAGE(real.ok(), real.firstWrong);
        }
      }
    }
  }
}

TEST_CASE("every hierarchical schedule is correct symbolically on 1..8 servers x 1..8 devices") {
  // The checker alone (the cases above also run real data): every op, every
  // level pair, the pipelined form, every server and device count to 8.
  const std::vector<std::string> levels = {"ring", "mesh", "rhd", "nhr", "nb"};
  int checked = 0;
  // Under a sanitizer, 1..5 and 8 of each.
  const std::vector<int> counts = testing::kSanitized ? std::vector<int>{1, 2, 3, 4, 5, 8} : testing::sweepCounts(8);
  for (int servers : counts) {
    for (int devices : counts) {
      int p = servers * devices;
      for (Collective op : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather, Collective::Broadcast}) {
        std::vector<std::string> names;
        for (const auto& intra : op == Collective::Broadcast ? std::vector<std::string>{"ring"} : levels)
          for (const auto& inter : op == Collective::Broadcast ? std::vector<std::string>{"ring"} : levels)
            names.push_back("hier:" + intra + "+" + inter);
        if (op == Collective::AllReduce || op == Collective::Broadcast) names.push_back("hierpipe:ring+ring");
        if (op == Collective::AllReduce)
          for (const char* name : {"hier:ring+tree", "hierpipe:ring+tree", "hier:mesh+dbtree"}) names.push_back(name);
        for (const auto& name : names) {
          auto algo = findAlgorithm(op, name);
          REQUIRE(algo);
          CollectiveSpec spec{op, p, std::uint64_t(2 * p + 3), 4, p > 1 ? p - 1 : 0, devices};
          if (!algo->unsupported(spec).empty()) continue;
          std::string coll = collectiveName(op);
          CAPTURE(coll);
          CAPTURE(name);
          CAPTURE(servers);
          CAPTURE(devices);
          CheckReport check = checkSchedule(*buildSchedule(*algo, spec), spec);
          CHECK_MESSAGE(check.ok(), check.summary());
          ++checked;
        }
      }
    }
  }
  MESSAGE(checked << " hierarchical schedules checked");
  CHECK(checked > (testing::kSanitized ? 1500 : 3000));
}

TEST_CASE("hierarchical ReduceScatter sends only (S-1)/S n/D per device over the fabric") {
  // 4 servers x 4 devices on one switch: every RoCE message is a transfer
  // between servers. Intra-first, a device's inter-server phase reduces its
  // chunk (n/D) over S servers: (S-1)/S n/D bytes sent.
  ClusterParams p = atlas(4, HccsShape::Mesh);
  p.server.devices = 4;
  Bytes roce = roceBytes(buildCluster(p), "hier:mesh+ring", CollectiveSpec{Collective::ReduceScatter, 16, 16_MiB, 1, 0, 4}).first;
  // Each byte crosses two RoCE links (device -> switch -> device).
  double perDevice = double(roce) / 2 / 16;
  CHECK_WITHIN(perDevice, 3.0 / 4 * double(16_MiB) / 4, 1e-6);
}

// The tree between servers as a phase: each head sends its half up once and
// down to each child, so over all servers 2 (S-1) halves a tree, two trees:
// 2 (S-1) x n/D bytes per server pair of a device's chunk, what the ring
// between heads moves in all too (S x 2 (S-1)/S x n/D). On two servers the
// trees are the two-rank ring itself: one half each way, then back.
TEST_CASE("the tree between servers moves the ring's bytes in all, and is the ring on two servers") {
  auto run = [](int servers, const char* name) {
    ClusterParams p = atlas(servers, HccsShape::Mesh);
    p.server.devices = 4;
    return roceBytes(buildCluster(p), name, CollectiveSpec{Collective::AllReduce, 4 * servers, 16_MiB, 1, 0, 4});
  };
  for (int servers : {3, 5, 8}) {
    CAPTURE(servers);
    Bytes tree = run(servers, "hier:mesh+tree").first;
    CHECK(tree == run(servers, "hier:mesh+ring").first);
    // Each byte crosses two RoCE links: 2 (S-1) x n/D per device of a server.
    CHECK_WITHIN(double(tree) / 2, 2.0 * (servers - 1) * double(16_MiB) / 4 * 4, 1e-9);
  }
  CHECK(run(2, "hier:mesh+tree") == run(2, "hier:mesh+ring"));
}

TEST_CASE("hierarchical names and their errors") {
  CHECK(findAlgorithm(Collective::AllReduce, "hier:ring+rhd"));
  CHECK(findAlgorithm(Collective::AllReduce, "level0:NA;level1:ring"));
  CHECK_FALSE(findAlgorithm(Collective::AllReduce, "hier:ring+nonsense"));
  CHECK_FALSE(findAlgorithm(Collective::AllReduce, "hier:ring"));
  AlgorithmEntry h = *findAlgorithm(Collective::AllReduce, "hier:ring+rhd");
  CHECK_FALSE(h.unsupported(CollectiveSpec{Collective::AllReduce, 8, 0, 4, 0, 0}).empty()); // one server
  CHECK_FALSE(h.unsupported(CollectiveSpec{Collective::AllReduce, 10, 0, 4, 0, 4}).empty()); // 2.5 servers
  CHECK(h.unsupported(CollectiveSpec{Collective::AllReduce, 12, 0, 4, 0, 4}).empty());
  AlgorithmEntry tree = *findAlgorithm(Collective::Broadcast, "hier:ring+dbtree");
  CHECK_FALSE(tree.unsupported(CollectiveSpec{Collective::Broadcast, 12, 0, 4, 0, 4}).empty());
  AlgorithmEntry pipe = *findAlgorithm(Collective::ReduceScatter, "hierpipe:ring+ring");
  CHECK_FALSE(pipe.unsupported(CollectiveSpec{Collective::ReduceScatter, 12, 0, 4, 0, 4}).empty());
  // Every level that pipelines on streams of its own runs as its one-stream
  // form (the trees), or is refused as a phase (it would not run as one
  // stream), whatever its name.
  int multiStream = 0, asPhase = 0;
  for (const auto* registry : {&algorithmRegistry(), &inNetworkRegistry()})
    for (const AlgorithmEntry& level : *registry) {
      if (level.op != Collective::AllReduce || !level.pipelinesChunks) continue;
      ++multiStream;
      AlgorithmEntry h = *findAlgorithm(Collective::AllReduce, "hier:ring+" + level.name);
      std::string why = h.unsupported(CollectiveSpec{Collective::AllReduce, 12, 0, 4, 0, 4});
      CAPTURE(level.name);
      if (level.buildAsPhase) {
        ++asPhase;
        CHECK(why.empty());
        CHECK_FALSE(h.pipelinesChunks);
      } else {
        CHECK(why.find("runs as several streams") != std::string::npos);
      }
    }
  CHECK(multiStream == 3); // dbtree, tree, nvls
  CHECK(asPhase == 2);     // the trees
}

TEST_CASE("ECMP spreads flows between leaves over all spines") {
  ClusterParams p = atlas(16, HccsShape::Ring);
  p.fabric = {FabricKind::LeafSpine, 4, 8, 1.0, 1_us};
  Cluster c = buildCluster(p);
  Routing routing(c);
  std::map<int, int> perSpine; // spine node -> flows through it
  int flows = 0;
  for (int a = 0; a < 32; ++a) {      // servers 0-3 (leaf 0) ...
    for (int b = 96; b < 128; ++b) {  // ... to servers 12-15 (leaf 3)
      auto r = routing.route(c.rankNode[a], c.rankNode[b]);
      REQUIRE(r.hops == 4); // device -> leaf -> spine -> leaf -> device
      const ClusterLink& up = c.links[routing.channel(r, 1) / 2];
      int spine = c.nodes[up.a].name.rfind("spine", 0) == 0 ? up.a : up.b;
      ++perSpine[spine];
      ++flows;
    }
  }
  REQUIRE(perSpine.size() == 8); // every spine is used
  for (const auto& entry : perSpine) {
    const int spine = entry.first, n = entry.second;
    CAPTURE(spine);
    CHECK(n > flows / 8 * 0.7); // 1024 flows: about 128 each
    CHECK(n < flows / 8 * 1.3);
  }
}

TEST_CASE("an oversubscribed spine slows the flat ring more than the hierarchical AllReduce") {
  // Flat ring: every one of its 2(p-1) steps waits for the slowest hop, and
  // the hops that cross leaves run over uplinks that oversubscription 8
  // halves (800 Gbps of uplinks per leaf over 8 spines at 1:1, 50 Gbps each
  // at 8:1, below a 100 Gbps NIC). Hierarchical: only its inter-server phase
  // crosses the fabric, with n/8 per device instead of n, so the same cut
  // in uplink bandwidth stretches a smaller part of it.
  auto time = [](double oversubscription, const std::string& algo) {
    ClusterParams p = atlas(16, HccsShape::Ring);
    p.fabric = {FabricKind::LeafSpine, 4, 8, oversubscription, 1_us};
    return seconds(buildCluster(p), algo, 256_MiB, 1_MiB);
  };
  double flat = time(8, "ring") / time(1, "ring");
  double hier = time(8, "hier:ring+ring") / time(1, "hier:ring+ring");
  INFO("flat ring slows by " << flat << "x, hierarchical by " << hier << "x");
  CHECK(flat > 1.5);
  CHECK(flat > hier);
}

TEST_CASE("cluster builders reject impossible fabrics") {
  ClusterParams p = atlas(2, HccsShape::Ring);
  p.nic.placement = NicPlacement::PerServer;
  p.nic.perServer = 9;
  p.nic.pcie = {32_GBps, 1_us};
  CHECK_THROWS_WITH_AS(buildCluster(p), doctest::Contains("NICs per server"), TopologyError);
  p = atlas(2, HccsShape::Ring);
  p.fabric = {FabricKind::LeafSpine, 0, 2, 1.0, 0};
  CHECK_THROWS_AS(buildCluster(p), TopologyError);
  p.fabric = {FabricKind::LeafSpine, 1, 2, 0.0, 0};
  CHECK_THROWS_WITH_AS(buildCluster(p), doctest::Contains("oversubscription"), TopologyError);
  p = atlas(0, HccsShape::Ring);
  CHECK_THROWS_AS(buildCluster(p), TopologyError);
}

TEST_CASE("shared NICs and rail fabrics route over the right links") {
  ClusterParams p = atlas(4, HccsShape::Mesh);
  p.nic.placement = NicPlacement::PerServer;
  p.nic.perServer = 2;
  p.nic.pcie = {32_GBps, 1_us};
  Cluster shared = buildCluster(p);
  Routing r1(shared);
  // device -> PCIe -> NIC -> switch -> NIC -> PCIe -> device
  CHECK(r1.route(shared.rankNode[0], shared.rankNode[8]).hops == 4);
  CHECK(r1.route(shared.rankNode[0], shared.rankNode[1]).hops == 1); // HCCS inside the server

  ClusterParams q = atlas(4, HccsShape::Ring);
  q.fabric = {FabricKind::Rail, 1, 2, 1.0, 1_us};
  Cluster rail = buildCluster(q);
  Routing r2(rail);
  CHECK(r2.route(rail.rankNode[3], rail.rankNode[8 + 3]).hops == 2);     // same rail: one switch
  CHECK(r2.route(rail.rankNode[3], rail.rankNode[8 + 4]).hops == 3); // HCCS to device 4, then over rail 4
}

TEST_CASE("the pipelined hierarchical AllReduce overlaps phases for large messages") {
  // 16x8: the intra-server phases (HCCS) and the inter-server phase (RoCE)
  // use different links, so running slice k's reduce-scatter while slice
  // k-1 crosses the fabric hides part of one behind the other. For small
  // messages the slices' latency-bound phases queue behind each other
  // instead, which is why HCCL pipelines only when a slice is >= 1 MiB.
  ClusterParams p = atlas(16, HccsShape::Ring);
  p.fabric = {FabricKind::LeafSpine, 4, 8, 1.0, 1_us};
  Cluster c = buildCluster(p);
  double plain = seconds(c, "hier:ring+rhd", 64_MiB, 1_MiB), piped = seconds(c, "hierpipe:ring+rhd", 64_MiB, 1_MiB);
  INFO("plain " << plain * 1e6 << " us, pipelined " << piped * 1e6 << " us");
  CHECK(piped < 0.9 * plain);
  CHECK(seconds(c, "hierpipe:ring+rhd", 64_KiB, 1_MiB) > seconds(c, "hier:ring+rhd", 64_KiB, 1_MiB));
}

TEST_CASE("traffic between devices of one server stays on HCCS unless intra-server RoCE is allowed") {
  // Device 0 to device 4 of a ring server: 4 HCCS hops, although the RoCE
  // switch is only 2 hops away (device -> switch -> device).
  ClusterParams p = atlas(2, HccsShape::Ring);
  Cluster kept = buildCluster(p);
  CHECK(Routing(kept).route(kept.rankNode[0], kept.rankNode[4]).hops == 4);
  p.intraServerRoce = true;
  Cluster open = buildCluster(p);
  CHECK(Routing(open).route(open.rankNode[0], open.rankNode[4]).hops == 2);
  // Between servers the fabric is used either way.
  CHECK(Routing(kept).route(kept.rankNode[0], kept.rankNode[8]).hops == 2);
}

// A group that covers less than an eighth of its world keeps its members as
// sorted pairs instead of a table the size of the world (a hierarchy's S
// groups of D would hold S x S D entries: 34 GB on 32,768 servers): its
// lookups agree with the members, and the hierarchies that build such
// groups (16 servers x 2 devices: server groups; 2 x 16: peer groups) check
// out symbolically.
TEST_CASE("small groups of a large world: lookups, and hierarchies built of them") {
  GroupView sparse({900, 3, 517}, 1 << 12, 0, 30, 4);
  CHECK(sparse.world() == 1 << 12);
  CHECK(sparse.local(900) == 0);
  CHECK(sparse.local(3) == 1);
  CHECK(sparse.local(517) == 2);
  CHECK(sparse.local(4) == -1);
  CHECK(sparse.local(0) == -1);
  CHECK(sparse.local((1 << 12) - 1) == -1);
  // The same group over another size: same members, its own count, from
  // the buffer's start.
  GroupView resized = sparse.sub({10, 20}).over(64);
  CHECK(resized.count() == 64);
  CHECK(resized.byteOffset() == 0);
  CHECK(resized.size() == 3);
  CHECK(resized.global(2) == 517);
  CHECK(resized.local(3) == 1);
  CHECK_THROWS_AS(GroupView({5, 9, 5}, 1 << 12, 0, 30, 4), std::invalid_argument);
  CHECK_THROWS_AS(GroupView({5, 1 << 12}, 1 << 12, 0, 30, 4), std::invalid_argument);
  for (std::pair<int, int> shape : {std::pair{16, 2}, std::pair{2, 16}, std::pair{32, 1}}) {
    const int servers = shape.first, devices = shape.second; // not a structured binding: clang 14's CAPTURE
    int p = servers * devices;
    for (const char* name : {"hier:ring+ring", "hier:mesh+rhd", "hierpipe:ring+ring", "hier:ring+tree"}) {
      auto algo = findAlgorithm(Collective::AllReduce, name);
      REQUIRE(algo);
      CollectiveSpec spec{Collective::AllReduce, p, std::uint64_t(2 * p + 3), 4, 0, devices};
      if (!algo->unsupported(spec).empty()) continue;
      CAPTURE(name);
      CAPTURE(servers);
      CheckReport check = checkSchedule(*buildSchedule(*algo, spec), spec);
      CHECK_MESSAGE(check.ok(), check.summary());
    }
  }
}
