// In-network reduction and multicast (algorithms/flat/nvls.h, the executor's
// switch legs): the nvls algorithms are AllReduce, ReduceScatter and
// AllGather by the checker and with real sums; through a switch that
// reduces, each device's links carry n/p per block, exact to the picosecond.
#include <doctest/doctest.h>

#include "test_support.h"

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/transports/threads/run_threads.h"
#include "sim/config/cluster_config.h"
#include "sim/network/link_network.h"
#include "sim/executor/schedule_executor.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"
#include "topologies/multi_server.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

// Four devices on a switch, 12 GB/s and 1 us per link.
Cluster switchServer(bool reduces, double efficiency = 1) {
  ServerParams p;
  p.devices = 4;
  p.shape = HccsShape::Switch;
  p.hccs = {12'000'000'000ULL, 1'000'000};
  p.switchReduces = reduces;
  p.switchReduceEfficiency = efficiency;
  return buildServer(p);
}

// Four servers of one device each, whose RoCE ports (12 GB/s, 1 us) meet at
// one fabric switch: the same links as switchServer, between servers.
Cluster switchFabric(bool reduces) {
  ClusterParams p;
  p.servers = 4;
  p.server.devices = 1;
  p.nic.roce = {12'000'000'000ULL, 1'000'000};
  p.fabric.reduces = reduces;
  return buildCluster(p);
}

struct Run {
  ExecutionResult result;
  Bytes down = 0; // bytes the switch sent down to devices
};

Run run(Collective op, bool reduces, std::uint64_t bytes, bool fabric = false, double efficiency = 1) {
  Cluster c = fabric ? switchFabric(reduces) : switchServer(reduces, efficiency);
  AlgorithmEntry nvls = *findAlgorithm(op, fabric ? "sharp" : "nvls");
  CollectiveSpec spec{op, 4, bytes / 4, 4, 0, 0};
  SchedulePtr s = buildSchedule(nvls, spec);
  EventEngine engine;
  LinkNetwork network(engine, c, 1024, Bytes(1) << 20);
  ScheduleExecutor x(engine, network, c, *s);
  Run r{x.run()};
  // Channel 2i carries link i from a to b; every link is device (a) to switch (b).
  for (std::size_t i = 0; i < c.links.size(); ++i) r.down += network.channelStats()[2 * i + 1].bytes;
  return r;
}

} // namespace

TEST_CASE("nvls algorithms compute their collectives (checker, and real sums on threads)") {
  for (Collective op : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather})
    for (int p : {2, 3, 4, 8}) {
      CAPTURE(collectiveName(op));
      CAPTURE(p);
      CollectiveSpec spec{op, p, std::uint64_t(5 * p + 3), 4, 0, 0};
      SchedulePtr s = buildSchedule(*findAlgorithm(op, "nvls"), spec);
      CheckReport r = checkSchedule(*s, spec);
      CHECK_MESSAGE(r.ok(), r.summary());
    }
  CollectiveSpec spec{Collective::AllReduce, 4, 1001, 4, 0, 0};
  RunOptions options{DataType::Float32, ReduceOp::Sum, std::chrono::milliseconds(20'000)};
  RealRunReport r = runWithThreads(*buildSchedule(*findAlgorithm(Collective::AllReduce, "nvls"), spec), spec, options);
  CHECK_MESSAGE(r.ok(), r.firstWrong);
}

TEST_CASE("through a reducing switch: reduce-scatter and all-gather in 2 latencies + n/B, exact") {
  // n = 48,000 B, blocks of 12,000 B: 1 us each at 12 GB/s.
  // Reduce-scatter: each device uploads its 3 blocks (done at 1, 2, 3 us,
  // at the switch 1 us later); the last contribution to every device is
  // there at 4 us; the sum comes down in 1 us + 1 us: 6 us.
  Run rs = run(Collective::ReduceScatter, true, 48'000);
  CHECK(rs.result.finish == 6'000'000);
  CHECK(rs.down == 4 * 12'000); // one sum down to each device
  // All-gather: each device uploads its block once (at the switch at 2 us);
  // the switch copies 3 blocks down each link, one after another: 2 + 3 + 1.
  CHECK(run(Collective::AllGather, true, 48'000).result.finish == 6'000'000);
  // Without reduction the switch forwards all 3 blocks down to each device.
  CHECK(run(Collective::ReduceScatter, false, 48'000).down == 4 * 3 * 12'000);
  // AllReduce: each device's links carry n each way (4 blocks up, 4 down)
  // instead of 1.5 n through a plain switch; the schedule's data is the same.
  Run reduced = run(Collective::AllReduce, true, 480'000), plain = run(Collective::AllReduce, false, 480'000);
  CHECK(reduced.down == 4 * 480'000);
  CHECK(plain.down == 4 * 480'000 * 3 / 2);
  CHECK(reduced.result.bytesSent == plain.result.bytesSent);
  CHECK(reduced.result.bytesReceived == reduced.result.bytesSent);
  // A switch reducing at 0.8 of its ports' rate: each 12,000 B block costs
  // its ports 15,000 B, 1.25 us: uploads done at 1.25, 2.5, 3.75 us, the
  // last at the switch at 4.75, its sum down by 4.75 + 1.25 + 1 = 7 us.
  Run slower = run(Collective::ReduceScatter, true, 48'000, false, 0.8);
  CHECK(slower.result.finish == 7'000'000);
  CHECK(slower.down == 4 * 15'000);
  // The switch merges a whole message before passing it on (real switches
  // reduce packet by packet): a gap the time shows, see docs/hardware.md.
}

TEST_CASE("through a fabric switch that reduces (SHARP), between servers: exact, with RoCE framing") {
  // The links of switchServer, now RoCE ports to a fabric switch, so the
  // derivation above holds with framed blocks: 12,000 B go as 12 packets of
  // at most 1,024 B, each with 82 B of framing, plus the write's 16 B RETH:
  // 13,000 B on the wire, 1,083,333.3 ps at 12 GB/s, rounded up to whole
  // picoseconds. Reduce-scatter and all-gather each take four of them on
  // the critical path and two latencies: 4 x 1,083,334 + 2,000,000 ps.
  const Time expected = 4 * 1'083'334 + 2'000'000;
  CHECK(run(Collective::ReduceScatter, true, 48'000, true).result.finish == expected);
  CHECK(run(Collective::ReduceScatter, true, 48'000, true).down == 4 * 12'000);
  CHECK(run(Collective::ReduceScatter, false, 48'000, true).down == 4 * 3 * 12'000);
  CHECK(run(Collective::AllGather, true, 48'000, true).result.finish == expected);
  Run reduced = run(Collective::AllReduce, true, 480'000, true), plain = run(Collective::AllReduce, false, 480'000, true);
  CHECK(reduced.down == 4 * 480'000);
  CHECK(plain.down == 4 * 480'000 * 3 / 2);
}

TEST_CASE("sharp needs a fabric switch that reduces, which only a single switch can be") {
  ClusterSetup h100 = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {});
  CHECK_THROWS_WITH_AS(requireAlgorithm(Collective::AllReduce, "hier:nvls+sharp", h100.cluster, "--algo"),
                       doctest::Contains("fabric: {type: switch, reduce: true}"), InputError);
  ClusterSetup sharp = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {"fabric.reduce=true"});
  CHECK(requireAlgorithm(Collective::AllReduce, "hierpipe:nvls+sharp", sharp.cluster, "--algo").name == "hierpipe:nvls+sharp");
  // sharp's AllReduce is one stream, so it composes as the level between servers.
  for (const char* name : {"hier:nvls+sharp", "hierpipe:nvls+sharp", "hier:ring+sharp"})
    for (int devices : {2, 3, 4}) {
      CollectiveSpec spec{Collective::AllReduce, 3 * devices, std::uint64_t(7 * devices + 5), 4, 0, devices};
      CAPTURE(name);
      CAPTURE(devices);
      CheckReport r = checkSchedule(*buildSchedule(*findAlgorithm(Collective::AllReduce, name), spec), spec);
      CHECK_MESSAGE(r.ok(), r.summary());
    }
  CHECK_THROWS_WITH_AS(loadClusterFile(source("configs/clusters/atlas-16x8-leafspine.yaml"), {"fabric.reduce=true"}),
                       doctest::Contains("only goes with type: switch"), ConfigError);
}

TEST_CASE("nvls needs a switch that reduces") {
  ClusterSetup a100 = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {});
  CHECK_THROWS_WITH_AS(requireAlgorithm(Collective::AllReduce, "nvls", a100.cluster, "--algo"),
                       doctest::Contains("reduce: true"), InputError);
  ClusterSetup h100 = loadClusterFile(source("configs/clusters/dgx-h100-8.yaml"), {"hccs.reduce=true"});
  CHECK(requireAlgorithm(Collective::AllReduce, "nvls", h100.cluster, "--algo").name == "nvls");
  // A hierarchy with an nvls level needs one too (AlgorithmEntry::needsReducingSwitch).
  ClusterSetup p4d = loadClusterFile(source("configs/clusters/p4d-2x8-efa.yaml"), {});
  CHECK_THROWS_WITH_AS(requireAlgorithm(Collective::AllReduce, "hierpipe:nvls+ring", p4d.cluster, "--algo"),
                       doctest::Contains("reduce: true"), InputError);
  CHECK(requireAlgorithm(Collective::AllReduce, "hierpipe:ring+ring", p4d.cluster, "--algo").name == "hierpipe:ring+ring");
  CHECK_THROWS_WITH_AS(loadClusterFile(source("configs/clusters/atlas-2x8.yaml"), {"hccs.reduce=true"}),
                       doctest::Contains("only goes with shape: switch"), ConfigError);
}

// NCCL counts NVLS as one 25 us hop over NVLink (its tuning table), the
// ring's Simple as 8.4 us and a few us a step. With that in place of
// Simple's base latency, one H100 node runs the ring (LL) up to 1 MiB and
// NVLS from 2 MiB, the choice NCCL 2.26 made on these machines
// (nccl-tests issue #309, tests/data/measured/h100-2x8-ib400-nccl2.26.txt).
TEST_CASE("one H100 node - the ring up to 1 MiB, NVLS from 2 MiB, as NCCL chose") {
  const std::string file = source("configs/clusters/dgx-h100-8.yaml");
  ClusterSetup h100 = loadClusterFile(file, {});
  CHECK(h100.library.nvlsLatency == 25'000'000);
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  AlgorithmEntry nvls = requireAlgorithm(Collective::AllReduce, "nvls", h100.cluster, "--algo");
  auto us = [&](const AlgorithmEntry& a, Bytes bytes, const LibraryModel& library) {
    RunRequest req{Collective::AllReduce, &a, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = library;
    return simulateCollective(h100.cluster, req).timeUs();
  };
  for (Bytes kib : {64, 256, 1024}) {
    CAPTURE(kib);
    CHECK(us(ring, kib << 10, h100.library) < us(nvls, kib << 10, h100.library));
  }
  for (Bytes mib : {2, 8, 64}) {
    CAPTURE(mib);
    CHECK(us(nvls, mib << 20, h100.library) < us(ring, mib << 20, h100.library));
  }
  // The latency takes the place of Simple's base latency, once: exactly the difference.
  LibraryModel plain = h100.library;
  plain.nvlsLatency = 0;
  const double moved = toMicroseconds(h100.library.nvlsLatency - h100.library.find(Protocol::Simple)->baseLatency);
  CHECK(us(nvls, Bytes(64) << 10, h100.library) - us(nvls, Bytes(64) << 10, plain) == doctest::Approx(moved).epsilon(1e-9));
  CHECK(us(ring, Bytes(64) << 10, h100.library) == us(ring, Bytes(64) << 10, plain)); // a ring does not reduce in the switch
  // NVLS's latency is NVLink's: SHARP, reducing in the fabric switch alone, keeps Simple's.
  ClusterSetup pair = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {"fabric.reduce=true"});
  AlgorithmEntry sharp = requireAlgorithm(Collective::AllReduce, "sharp", pair.cluster, "--algo");
  auto sharpUs = [&](const LibraryModel& library) {
    RunRequest req{Collective::AllReduce, &sharp, DataType::Float32, Bytes(64) << 10, Bytes(1) << 20, false};
    req.library = library;
    return simulateCollective(pair.cluster, req).timeUs();
  };
  LibraryModel pairPlain = pair.library;
  pairPlain.nvlsLatency = 0;
  CHECK(sharpUs(pair.library) == sharpUs(pairPlain));
  CHECK_THROWS_WITH_AS(loadClusterFile(file, {"library.nvls_latency=soon"}), doctest::Contains("nvls_latency"), ConfigError);
}

// NCCL's NVLS tree: NVLS inside each server, the heads' double binary tree
// between servers, each NVLS chunk whole (hierpipe pipelines the chunks).
// Past two servers the ring between heads pays 2(S-1) hops of a small piece
// per chunk under Simple's two slots; the trees pay 2 log2 S hops.
TEST_CASE("hierpipe:nvls+tree - NCCL's NVLS tree, correct, and past two servers ahead of the ring between heads") {
  for (auto layout : {std::pair{3, 4}, std::pair{4, 2}, std::pair{5, 3}}) {
    const int servers = layout.first, devices = layout.second; // plain names: CAPTURE cannot take bindings (clang 14)
    CAPTURE(servers);
    CollectiveSpec spec{Collective::AllReduce, servers * devices, 1001, 4, 0, devices};
    SchedulePtr s = buildSchedule(*findAlgorithm(Collective::AllReduce, "hierpipe:nvls+tree"), spec);
    CheckReport r = checkSchedule(*s, spec);
    CHECK_MESSAGE(r.ok(), r.summary());
    RunOptions options{DataType::Float32, ReduceOp::Sum, std::chrono::milliseconds(20'000)};
    RealRunReport real = runWithThreads(*s, spec, options);
    CHECK_MESSAGE(real.ok(), real.firstWrong);
  }
  ClusterSetup h100 = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {"servers=8"});
  auto run = [&](const char* name) {
    AlgorithmEntry a = requireAlgorithm(Collective::AllReduce, name, h100.cluster, "--algo");
    RunRequest req{Collective::AllReduce, &a, DataType::Float32, Bytes(1) << 30, Bytes(1) << 20, false};
    req.library = h100.library;
    return simulateCollective(h100.cluster, req);
  };
  CollectiveRun tree = run("hierpipe:nvls+tree"), ring = run("hierpipe:nvls+ring");
  CHECK(tree.execution.finish < ring.execution.finish);
  CHECK(tree.execution.bytesSent == tree.execution.bytesReceived);
}
