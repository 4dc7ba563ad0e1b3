// The collective library's mechanisms (sim/run/library_model.h): what each
// adds to a run, picosecond-exact on one link; chunk loops are still
// AllReduces; rings follow a server's links; and the library's section of a
// cluster file is checked like the rest.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "relative_error.h"
#include "test_support.h"

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/channels.h"
#include "algorithms/core/chunk_loops.h"
#include "sim/config/cluster_config.h"
#include "sim/network/link_network.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/schedule_cache.h"
#include "sim/run/simulate.h"
#include "topologies/ring_orders.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

// Rank 0 sends 12,000 bytes to rank 1 over one 12 GB/s link of 1 us, in
// `sends` steps one after another; rank 1 computes for `busy` first.
Time oneSend(const StepCosts& costs, int sends = 1, Time busy = 0) {
  Cluster c = hccsRing(2);
  MaterializedSchedule steps(2);
  if (busy > 0) steps[1].push_back({Op{OpKind::Compute, 0, 0, 0, 0, busy}});
  for (int i = 0; i < sends; ++i) {
    steps[0].push_back({Op{OpKind::Send, 1, std::uint64_t(i) * 12'000, 12'000}});
    steps[1].push_back({Op{OpKind::Recv, 0, std::uint64_t(i) * 12'000, 12'000}});
  }
  ExplicitSchedule s(steps);
  EventEngine engine;
  LinkNetwork network(engine, c, 1024, Bytes(1) << 20);
  ScheduleExecutor x(engine, network, c, s);
  x.setCosts(costs);
  return x.run().finish;
}

} // namespace

TEST_CASE("step costs: launch, step latency, line data share, lane bandwidth and slots, exact on one link") {
  // Plain: 1 us latency + 12,000 B / 12 GB/s = 1 us.
  CHECK(oneSend({}) == 2'000'000);
  // Launch 5 us and a 2 us step latency come first: 5 + 2 + 1 + 1.
  CHECK(oneSend({5'000'000, 2'000'000, 0, 1, 0}) == 9'000'000);
  // Half of each line is data (LL): 24,000 B on the wire, 2 us: 1 + 2.
  CHECK(oneSend({0, 0, 0, 0.5, 0}) == 3'000'000);
  // A lane pushing 3 GB/s of data needs 4 us, longer than the network's 2.
  CHECK(oneSend({0, 0, 0, 1, 3'000'000'000ULL}) == 4'000'000);
  // The inter-server latency is not paid between devices of one server.
  CHECK(oneSend({0, 0, 7'000'000, 1, 0}) == 2'000'000);
  // Two sends in two steps. Each holds its step until delivered: the second
  // leaves at 2 us and arrives at 4. With two slots the sender moves on at
  // once: both serialize back to back and the second arrives at 1 + 2 = 3.
  CHECK(oneSend({}, 2) == 4'000'000);
  CHECK(oneSend({0, 0, 0, 1, 0, 2}, 2) == 3'000'000);
  // One slot: the first send takes it and frees the step; the second waits
  // for the slot. Rank 1 takes the first at 2 us and gives the slot back,
  // which reaches rank 0 after the link's 1 us: the second leaves at 3 us
  // and arrives 2 us later.
  CHECK(oneSend({0, 0, 0, 1, 0, 1}, 2) == 5'000'000);
  // The slot comes back when the receiver takes the data, not when it
  // arrives: rank 1 computes for 10 us first, so the second send leaves at
  // 11 us and arrives at 13.
  CHECK(oneSend({0, 0, 0, 1, 0, 1}, 2, 10'000'000) == 13'000'000);
  // With two slots that wait costs nothing: both arrive by 3 us, rank 1
  // takes them at 10.
  CHECK(oneSend({0, 0, 0, 1, 0, 2}, 2, 10'000'000) == 10'000'000);
  // A 3 us hop latency is the data's way to its receiver: 2 + 3. With two
  // slots the sender does not wait for it: the second send leaves at once,
  // arrives at 3 us and is seen at 6.
  CHECK(oneSend({0, 0, 0, 1, 0, 0, 3'000'000, 0}) == 5'000'000);
  CHECK(oneSend({0, 0, 0, 1, 0, 2, 3'000'000, 0}, 2) == 6'000'000);
}

namespace {

// Ranks 0, 1 on one server, 2, 3 on the other: six ring steps of 64 B, each
// sending to the next rank and receiving from the one before (8 slots).
Time twoServerRing(Time intraHop, Time interHop, Time intraStep, Time interStep) {
  Cluster c = loadClusterFile(source("configs/clusters/atlas-2x8.yaml"), {"devices=2"}).cluster;
  MaterializedSchedule steps(4);
  for (int k = 0; k < 6; ++k)
    for (int r = 0; r < 4; ++r)
      steps[std::size_t(r)].push_back({Op{OpKind::Send, (r + 1) % 4, std::uint64_t(k) * 64, 64},
                                       Op{OpKind::Recv, (r + 3) % 4, std::uint64_t(k) * 64, 64}});
  ExplicitSchedule s(steps);
  EventEngine engine;
  LinkNetwork network(engine, c, 1024, Bytes(1) << 20);
  ScheduleExecutor x(engine, network, c, s);
  x.setCosts({0, intraStep, interStep, 1, 0, 8, intraHop, interHop});
  return x.run().finish;
}

} // namespace

TEST_CASE("hop latencies add up along the ring's critical path - step latencies at every step") {
  // A step ends when its receive is seen: end(r, k) = max(end(r, k-1),
  // end(r-1, k-1) + hop(r-1 -> r)). Hops 0->1 and 2->3 stay in a server
  // (a), 1->2 and 3->0 cross (b). Every rank's steps end at b, a; a+b;
  // a+2b or 2a+b; 2a+2b; 3a+2b or 2a+3b; 3a+3b: six steps pay three of
  // each, so 1 us and 10 us hops add 33 us to the plain run.
  const Time plain = twoServerRing(0, 0, 0, 0);
  CHECK(twoServerRing(1'000'000, 10'000'000, 0, 0) - plain == 33'000'000);
  // A step latency holds its rank: every rank has a peer on the other
  // server, so each of the six steps pays the 10 us.
  CHECK(twoServerRing(0, 0, 1'000'000, 10'000'000) - plain == 60'000'000);
}

TEST_CASE("chunk loops: an AllReduce in loops of ranks x chunk is still an AllReduce, with loops x 2(p-1) steps") {
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  // 103 floats on 4 ranks in loops of 4 x 2 elements: 13 loops, the last of 7.
  CollectiveSpec spec{Collective::AllReduce, 4, 103, 4, 0, 0};
  CHECK(chunkLoopCount(103, 4, 4, 8) == 13);
  SchedulePtr looped = buildSchedule(withChunkLoops(ring, 8), spec);
  CHECK(looped->stepCount(0) == 13 * 6);
  CheckReport r = checkSchedule(*looped, spec);
  CHECK_MESSAGE(r.ok(), r.summary());
  // As channels, each looping on its own share.
  for (const char* name : {"ring", "rhd", "mesh"}) {
    CAPTURE(name);
    SchedulePtr s = buildSchedule(withChannels(withChunkLoops(*findAlgorithm(Collective::AllReduce, name), 8), 3), spec);
    CheckReport c = checkSchedule(*s, spec);
    CHECK_MESSAGE(c.ok(), c.summary());
  }
  // Other collectives run in one loop (their blocks would move).
  CollectiveSpec rs{Collective::ReduceScatter, 4, 103, 4, 0, 0};
  AlgorithmEntry rsRing = *findAlgorithm(Collective::ReduceScatter, "ring");
  CHECK(buildSchedule(withChunkLoops(rsRing, 8), rs)->stepCount(0) == buildSchedule(rsRing, rs)->stepCount(0));
}

TEST_CASE("rings along a DGX-1's links use only direct links, no link direction more often than it has links") {
  ClusterSetup v100 = loadClusterFile(source("configs/clusters/v100-cubemesh-8.yaml"), {});
  const auto& rings = v100.cluster.serverRings;
  REQUIRE(rings.size() >= 2);
  std::map<std::pair<int, int>, int> links, used;
  YAML::Node root = loadYamlFile(source("configs/clusters/v100-cubemesh-8.yaml"), "a cluster file");
  for (const auto& l : root["scale_up"]["links"]) {
    int a = l[0].as<int>(), b = l[1].as<int>();
    ++links[{a, b}], ++links[{b, a}];
  }
  for (const auto& ring : rings) {
    CHECK(std::set<int>(ring.begin(), ring.end()).size() == 8);
    for (int i = 0; i < 8; ++i) ++used[{ring[i], ring[(i + 1) % 8]}];
  }
  for (const auto& entry : used) {
    int from = entry.first.first, to = entry.first.second;
    CAPTURE(from);
    CAPTURE(to);
    CHECK(entry.second <= links[entry.first]);
  }
  // Six links a device, two of them a ring's: at most six rings use disjoint
  // directions, and the DGX-1 reaches that bound (all 48 directions used, as
  // NCCL's six rings do). Choosing each ring greedily stops at five.
  CHECK(rings.size() == 6);
  CHECK(used.size() == links.size());
  // Index order where any order will do.
  CHECK(hccsRing(8).serverRings.empty());
  CHECK(ringsAlongLinks(4, {{0, 1}, {1, 2}, {2, 3}}, 4).empty()); // a path has no ring
  // A square with doubled sides carries its ring twice each way; `most` caps it.
  std::vector<std::pair<int, int>> square = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 0}};
  CHECK(ringsAlongLinks(4, square, 8).size() == 4);
  CHECK(ringsAlongLinks(4, square, 3).size() == 3);
}

TEST_CASE("the library section: presets, figures, and located errors") {
  const std::string file = source("configs/clusters/dgx-a100-8.yaml");
  ClusterSetup a100 = loadClusterFile(file, {});
  CHECK(a100.library.kind == LibraryKind::Nccl);
  CHECK(a100.library.channels == 24);
  REQUIRE(a100.library.find(Protocol::LL128));
  CHECK(a100.library.find(Protocol::LL128)->dataShare == doctest::Approx(120.0 / 128));
  ClusterSetup fixed = loadClusterFile(file, {"library.protocol=Simple", "library.protocols.Simple.hop_intra=5us"});
  CHECK(fixed.library.candidates().size() == 1);
  CHECK(fixed.library.find(Protocol::Simple)->hopIntra == 5'000'000);
  CHECK(loadClusterFile(file, {"library=ideal"}).library.ideal());
  // A preset name takes figures too: library: nccl becomes {name: nccl}.
  CHECK(loadClusterFile(file, {"library=nccl", "library.launch=5us"}).library.launch == 5'000'000);
  auto error = [&](const std::string& set) {
    try {
      loadClusterFile(file, {set});
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(contains(error("library=mpich"), "unknown library 'mpich' (expected one of: ideal, nccl, hccl)"));
  CHECK(contains(error("library.protocol=LL64"), "has no protocol LL64 (protocols: auto, LL, LL128, Simple; a list: A,B; all but: ^A)"));
  CHECK(contains(error("library.protocols.LL.data_share=1.5"), "in (0, 1]"));
  CHECK(contains(error("hccs.efficiency=1.2"), "efficiency"));
  CHECK(contains(error("library.channels=0"), "library.channels"));
  CHECK(contains(error("library.protocols.LL.lane_efficiency=2"), "in [0, 1] (0: none)"));
  // A100's NVSwitch does not reduce: no rate for a reduction it cannot do.
  CHECK(contains(error("hccs.reduce_efficiency=0.9"), "'reduce_efficiency' goes with reduce: true"));
  CHECK(contains(error("library.protocols.LL.max_bytes=lots"), "library.protocols.LL.max_bytes"));
}

// Switch points: a protocol runs up to its max_bytes. The fastest of those
// left runs; past every switch point, the protocol that reaches furthest.
TEST_CASE("switch points - a protocol runs sizes up to its max_bytes, the fastest of those left wins") {
  const std::string file = source("configs/clusters/dgx-a100-8.yaml");
  ClusterSetup a100 = loadClusterFile(file, {"library.protocols.LL.max_bytes=256KiB", "library.protocols.LL128.max_bytes=none"});
  CHECK(a100.library.find(Protocol::LL)->maxBytes == Bytes(256) << 10);
  CHECK(a100.library.find(Protocol::LL128)->maxBytes == 0);
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  auto protocolAt = [&](const LibraryModel& library, Bytes bytes) {
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = library;
    return simulateCollective(a100.cluster, req).protocol;
  };
  // LL is the fastest at 256 KiB and 1 MiB (the preset); past its switch point LL128 is.
  CHECK(protocolAt(a100.library, Bytes(256) << 10) == Protocol::LL);
  CHECK(protocolAt(loadClusterFile(file, {}).library, Bytes(1) << 20) == Protocol::LL);
  CHECK(protocolAt(a100.library, Bytes(1) << 20) == Protocol::LL128);
  // Every protocol limited: above all their switch points the furthest runs.
  LibraryModel all = a100.library;
  for (auto& p : all.protocols) p.maxBytes = p.kind == Protocol::LL ? Bytes(1) << 20 : p.kind == Protocol::LL128 ? Bytes(8) << 20 : Bytes(4) << 20;
  auto names = [](const std::vector<const ProtocolModel*>& ps) {
    std::string s;
    for (const auto* p : ps) s += (s.empty() ? "" : ",") + std::string(p->name());
    return s;
  };
  CHECK(names(all.candidatesFor(Bytes(1) << 20)) == "LL,LL128,Simple");
  CHECK(names(all.candidatesFor(Bytes(2) << 20)) == "LL128,Simple");
  CHECK(names(all.candidatesFor(Bytes(8) << 20)) == "LL128");
  CHECK(names(all.candidatesFor(Bytes(1) << 30)) == "LL128");
  // A fixed protocol stays fixed: its switch point leaves it as the only one.
  all.protocol = ProtocolSet::only(Protocol::LL);
  CHECK(names(all.candidatesFor(Bytes(1) << 30)) == "LL");
}

TEST_CASE("the library picks LL for small sizes, Simple for large, and more channels as sizes grow") {
  ClusterSetup a100 = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {});
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  auto run = [&](Bytes bytes) {
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = a100.library;
    return simulateCollective(a100.cluster, req);
  };
  CollectiveRun small = run(Bytes(64) << 10), large = run(Bytes(256) << 20);
  CHECK(small.protocol == Protocol::LL);
  CHECK(large.protocol == Protocol::Simple);
  CHECK(small.channels < large.channels);
  CHECK(large.channels == 24);
  // Bytes sent equal bytes received, whatever the lines carried on the wire.
  CHECK(large.execution.bytesSent == large.execution.bytesReceived);
}

// hierpipe:nvls+ring at 256 MiB on 2 x 8 H100, 16 channels of 16 MiB: NCCL's
// 128 KiB NVLS chunk per device makes 16 slices a channel, whose phases
// overlap; the 2 MiB Simple chunk (nvls_chunk 0) makes one, run phase after
// phase. The same bytes either way.
TEST_CASE("a channel moves at most its share of its device's links, of which LL fills half") {
  // Two devices on a 100 GB/s switch without latencies; NCCL's protocols
  // without their latencies; one channel used (channel_bytes), of four.
  ClusterSetup two = loadClusterFile(
      source("configs/clusters/dgx-a100-8.yaml"),
      {"devices=2", "hccs.bandwidth=100GB/s", "hccs.efficiency=1", "hccs.latency=0", "library.channels=4",
       "library.launch=0", "library.protocols.Simple.base_latency=0", "library.protocols.Simple.hop_intra=0",
       "library.protocols.Simple.channel_bytes=1GiB", "library.protocols.LL.base_latency=0",
       "library.protocols.LL.hop_intra=0", "library.protocols.LL.channel_bytes_per_rank=1GiB"});
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  auto us = [&](Protocol protocol) {
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, Bytes(1) << 20, Bytes(1) << 20, false};
    req.library = two.library;
    req.library.protocol = ProtocolSet::only(protocol);
    CollectiveRun run = simulateCollective(two.cluster, req);
    CHECK(run.channels == 1);
    return toMicroseconds(run.execution.finish);
  };
  // Simple: the channel's share is 100 / 4 = 25 GB/s, a quarter of the
  // link: two steps of 512 KiB at 25 GB/s, 2 x 20.97152 us.
  CHECK_WITHIN(us(Protocol::Simple), 41.94304, 1e-9);
  // LL: half the lines are flags and the channel fills half its share, so
  // 6.25 GB/s of data: 32 KiB chunks, 16 loops of 2 steps, 32 x 5.24288 us.
  CHECK_WITHIN(us(Protocol::LL), 167.77216, 1e-9);
}

// The same two devices with LL's bus ceiling at 2 GB/s, below the 6.25 GB/s
// a channel's share gives LL: on one channel, 32 steps of 32 KiB at 2 GB/s,
// 32 x 16.384 us; on four, each channel has 0.5 GB/s for its 256 KiB, eight
// steps of 32 KiB at 65.536 us: the same 524.288 us, as the ceiling is the
// device's, whatever the channels.
TEST_CASE("a protocol's bus ceiling is shared by the run's channels - by server count") {
  auto us = [&](int channels) {
    std::vector<std::string> sets{"devices=2", "hccs.bandwidth=100GB/s", "hccs.efficiency=1", "hccs.latency=0",
                                  "library.channels=4", "library.launch=0", "library.protocol=LL",
                                  "library.protocols.LL.base_latency=0", "library.protocols.LL.hop_intra=0",
                                  "library.protocols.LL.bus_bandwidth=[2GB/s, 1GB/s, 1GB/s]",
                                  "library.protocols.LL.channel_bytes_per_rank=" + std::string(channels == 1 ? "1GiB" : "0")};
    ClusterSetup two = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), sets);
    AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, Bytes(1) << 20, Bytes(1) << 20, false};
    req.library = two.library;
    CollectiveRun run = simulateCollective(two.cluster, req);
    CHECK(run.channels == channels);
    return toMicroseconds(run.execution.finish);
  };
  CHECK_WITHIN(us(1), 524.288, 1e-9);
  CHECK_WITHIN(us(4), 524.288, 1e-9);
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  const std::string row = "library.protocols.LL.bus_bandwidth=[141GB/s, 39GB/s, 20.4GB/s]";
  CHECK(loadClusterFile(h100, {row, "servers=1"}).library.find(Protocol::LL)->busBandwidthFor(1) == Bandwidth(141e9));
  CHECK(loadClusterFile(h100, {row}).library.find(Protocol::LL)->busBandwidthFor(2) == Bandwidth(39e9));
  CHECK(loadClusterFile(h100, {row}).library.find(Protocol::LL)->busBandwidthFor(8) == Bandwidth(20.4e9));
  CHECK(loadClusterFile(h100, {"library.protocols.LL.bus_bandwidth=5GB/s"}).library.find(Protocol::LL)->busBandwidthFor(3) ==
        Bandwidth(5e9));
  CHECK_THROWS_WITH_AS(loadClusterFile(h100, {"library.protocols.LL.bus_bandwidth=[1GB/s, 2GB/s]"}),
                       doctest::Contains("three: [one server, two, three or more]"), ConfigError);
}

TEST_CASE("in-network algorithms slice by the library's NVLS chunk") {
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  AlgorithmEntry hierpipe = *findAlgorithm(Collective::AllReduce, "hierpipe:nvls+ring");
  auto run = [&](const std::vector<std::string>& sets, Bytes bytes = Bytes(256) << 20) {
    ClusterSetup setup = loadClusterFile(h100, sets);
    RunRequest req{Collective::AllReduce, &hierpipe, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = setup.library;
    return simulateCollective(setup.cluster, req);
  };
  CollectiveRun fine = run({"library.protocol=Simple"}), coarse = run({"library.protocol=Simple", "library.nvls_chunk=0"});
  CHECK(fine.channels == 16);
  CHECK(fine.execution.finish < coarse.execution.finish);
  CHECK(fine.execution.bytesSent == coarse.execution.bytesSent);
  CHECK_THROWS_WITH_AS(loadClusterFile(h100, {"library.nvls_chunk=fast"}), doctest::Contains("nvls_chunk"), ConfigError);
  // NCCL runs NVLS with Simple only, on all its NVLS channels: at 64 KiB,
  // where a ring takes LL on one channel, the library picks Simple on 16;
  // with LL alone it has no protocol for it.
  CollectiveRun small = run({}, Bytes(64) << 10);
  CHECK(small.protocol == Protocol::Simple);
  CHECK(small.channels == 16); // all its NVLS channels at every size, as NCCL
  CHECK_THROWS_WITH_AS(run({"library.protocol=LL"}, Bytes(64) << 10), doctest::Contains("reduces in the network"), InputError);
}

// LL's lines carry their own flags: each of 512 threads passes its line on
// as it lands, so a tree under LL pipelines 4 KiB waves where it would
// otherwise store and forward 32 KiB chunks hop by hop. A ring sends every
// step's data on every link at once: its chunk loops do not use the wave.
// At 1 MiB each of the tree's 16 channels has 64 KiB, two chunks.
TEST_CASE("a tree under LL pipelines the protocol's wave - a ring does not use it") {
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  auto run = [&](const char* algorithm, const std::vector<std::string>& sets) {
    ClusterSetup setup = loadClusterFile(h100, sets);
    AlgorithmEntry a = *findAlgorithm(Collective::AllReduce, algorithm);
    RunRequest req{Collective::AllReduce, &a, DataType::Float32, Bytes(1) << 20, Bytes(1) << 20, false};
    req.library = setup.library;
    return simulateCollective(setup.cluster, req);
  };
  CHECK(loadClusterFile(h100, {}).library.find(Protocol::LL)->wave == Bytes(4) << 10);
  CollectiveRun waves = run("tree", {"library.protocol=LL"}), chunks = run("tree", {"library.protocol=LL", "library.protocols.LL.wave=0"});
  CHECK(waves.execution.finish < chunks.execution.finish);
  CHECK(waves.execution.messages > chunks.execution.messages); // more, smaller pieces
  CHECK(waves.execution.bytesSent == chunks.execution.bytesSent);
  CollectiveRun ring = run("ring", {"library.protocol=LL"}), ringNoWave = run("ring", {"library.protocol=LL", "library.protocols.LL.wave=0"});
  CHECK(ring.execution.finish == ringNoWave.execution.finish);
  CHECK(ring.execution.messages == ringNoWave.execution.messages);
  CHECK_THROWS_WITH_AS(loadClusterFile(h100, {"library.protocols.LL.wave=lots"}), doctest::Contains("wave"), ConfigError);
}

// NCCL's LL takes a channel per 512 threads x 8 B = 4 KiB, and a ring's
// threshold is that times the ranks (a ring step moves one rank's piece):
// 64 KiB on 16 ranks is one ring channel, 64 KiB / 4 KiB = 16 tree channels.
TEST_CASE("LL's channel threshold counts the ranks for a ring, not for a tree") {
  ClusterSetup setup = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {"library.protocol=LL"});
  auto run = [&](const char* algorithm, Bytes bytes) {
    AlgorithmEntry a = *findAlgorithm(Collective::AllReduce, algorithm);
    RunRequest req{Collective::AllReduce, &a, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = setup.library;
    return simulateCollective(setup.cluster, req);
  };
  CHECK(run("ring", Bytes(64) << 10).channels == 1);
  CHECK(run("ring", Bytes(128) << 10).channels == 2);
  CHECK(run("tree", Bytes(8) << 10).channels == 2);
  CHECK(run("tree", Bytes(64) << 10).channels == 16);
}

// Atlas 800T A2: 8 x 910B, each pair on its own 18.3 GB/s HCCS link, under
// HCCL (13 us a step). A mesh AllReduce is one reduce-scatter step and one
// all-gather step over all seven links at once; the ring takes 14 steps
// over one link each way: mesh wins at every size, which is why HCCL runs
// level 0 as mesh on 910B servers. 64 MiB by mesh: each step moves 1/8 of
// the buffer to each of 7 peers at once, 8,388,608 B / 18.3 GB/s =
// 458.393 us, and pays HCCL's 13 us and the link's 1 us: 2 x 472.393.
TEST_CASE("the Atlas 800T A2 preset: a full HCCS mesh of 910B under HCCL, on which mesh beats ring") {
  ClusterSetup a2 = loadClusterFile(source("configs/clusters/atlas-800t-a2-8.yaml"), {});
  CHECK(a2.cluster.ranks() == 8);
  CHECK(a2.cluster.links.size() == 28 + 8); // 8 x 7 / 2 HCCS pairs, a NIC link per NPU
  CHECK(a2.library.kind == LibraryKind::Hccl);
  CHECK(a2.cluster.device.memory == Bytes(64) << 30);
  auto run = [&](const char* algo, Bytes bytes) {
    AlgorithmEntry a = *findAlgorithm(Collective::AllReduce, algo);
    RunRequest req{Collective::AllReduce, &a, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = a2.library;
    return simulateCollective(a2.cluster, req).timeUs();
  };
  for (Bytes bytes : {Bytes(1) << 20, Bytes(64) << 20}) {
    CAPTURE(bytes);
    CHECK(run("mesh", bytes) < run("ring", bytes));
  }
  CHECK(run("mesh", Bytes(64) << 20) == doctest::Approx(2 * 472.393).epsilon(1e-5));
  // Four servers on one switch, a 200 Gb/s NIC per NPU.
  ClusterSetup four = loadClusterFile(source("configs/clusters/atlas-800t-a2-8.yaml"), {"servers=4"});
  CHECK(four.cluster.ranks() == 32);
  CHECK(four.cluster.servers == 4);
}

// NCCL spreads its rings' ends over a server's NICs. On two DGX-1s (four
// NICs, one per two GPUs), channel k runs along ring k mod 6, entered where
// the devices entered and left least so far (channels.cpp, ringEntry): the
// 16 channels enter and leave each server through every NIC, three to five
// each (four is an even spread). With every ring entered at its first device
// five or six channels shared a NIC, and the flat ring took 82 ms at 1 GiB
// where it now takes 52.
TEST_CASE("channels along a DGX-1's rings enter and leave a server through every NIC") {
  ClusterSetup v100 = loadClusterFile(source("configs/clusters/v100-cubemesh-8.yaml"), {"servers=2"});
  std::map<int, int> in, out;
  for (int k = 0; k < 16; ++k) {
    ++in[(channelMember(8, k, 16, 8, v100.cluster.serverRings) - 8) / 2];
    ++out[(channelMember(15, k, 16, 8, v100.cluster.serverRings) - 8) / 2];
  }
  for (int nic = 0; nic < 4; ++nic) {
    CAPTURE(nic);
    CHECK(in[nic] >= 3);
    CHECK(out[nic] >= 3);
    CHECK(in[nic] <= 5);
    CHECK(out[nic] <= 5);
  }
}

// Every hardware preset scales to more servers (--set servers=N): the
// single-server ones name their machine's NICs. A ring over four servers of
// each runs, and every byte sent arrives.
TEST_CASE("every hardware preset takes servers=4") {
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  for (const char* preset : {"dgx-a100-8", "dgx-h100-8", "v100-cubemesh-8", "p4d-2x8-efa", "h100-2x8-ib400",
                             "atlas-800t-a2-8", "atlas-2x8", "atlas-2x8-mesh"}) {
    CAPTURE(preset);
    ClusterSetup four = loadClusterFile(source("configs/clusters/" + std::string(preset) + ".yaml"), {"servers=4"});
    CHECK(four.cluster.servers == 4);
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, Bytes(1) << 20, Bytes(1) << 20, false};
    req.library = four.library;
    CollectiveRun run = simulateCollective(four.cluster, req);
    CHECK(run.execution.finish > 0);
    CHECK(run.execution.bytesSent == run.execution.bytesReceived);
  }
}

// An estimate under a library counts what the run simulates: every
// candidate protocol with its channels and chunk loops (a steady state's two
// runs), not the bare algorithm, which on 24 channels is a small part of it.
// The estimate runs the protocols the bound lets through, as the run does.
TEST_CASE("a library run's estimate counts its protocols' channels and loops, within 4x of the events simulated") {
  ClusterSetup a100 = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {});
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  const CollectiveEstimator estimate(a100.cluster);
  for (Bytes bytes : {Bytes(256) << 10, Bytes(64) << 20, Bytes(1) << 30}) {
    CAPTURE(bytes);
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, bytes, Bytes(1) << 20, false};
    req.library = a100.library;
    const double simulated = double(simulateCollective(a100.cluster, req).simulatedEvents);
    const double estimated = estimateCollectiveRun(estimate, a100.cluster, req).events;
    CHECK(estimated >= simulated / 4);
    CHECK(estimated <= simulated * 4);
    // The bare algorithm's estimate, as it was: far below where 24 channels
    // run whole (at 1 GiB the steady state's extension spares most of it).
    if (bytes == Bytes(64) << 20)
      CHECK(estimate({Collective::AllReduce, &ring, bytes, 4, 0, Bytes(1) << 20}).events < simulated / 4);
  }
}

// calibrate's comparisons share their schedules (sim/run/schedule_cache.h):
// a run whose schedule comes from the cache is the run that builds its
// own, to the picosecond and the event, and a shape's schedule is built
// once however many runs ask for it (NVLS's tree, the tree and the ring
// under NCCL's protocols, each size its own shapes).
TEST_CASE("runs that share a schedule cache time exactly as runs that build their own") {
  ClusterSetup h100 = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {});
  ScheduleCache cache;
  for (const char* name : {"ring", "tree", "hierpipe:nvls+tree"})
    for (Bytes bytes : {Bytes(64) << 10, Bytes(4) << 20, Bytes(256) << 20}) {
      CAPTURE(name);
      CAPTURE(bytes);
      AlgorithmEntry algo = requireAlgorithm(Collective::AllReduce, name, h100.cluster, "the test");
      RunRequest req{Collective::AllReduce, &algo, DataType::Float32, bytes, Bytes(1) << 20, false};
      req.roce = h100.roce;
      req.library = h100.library;
      const CollectiveRun fresh = simulateCollective(h100.cluster, req);
      req.schedules = &cache;
      const CollectiveRun first = simulateCollective(h100.cluster, req);
      const std::size_t built = cache.size();
      const CollectiveRun again = simulateCollective(h100.cluster, req);
      CHECK(cache.size() == built);
      for (const CollectiveRun* r : {&first, &again}) {
        CHECK(r->execution.finish == fresh.execution.finish);
        CHECK(r->execution.events == fresh.execution.events);
        CHECK(r->protocol == fresh.protocol);
      }
    }
  CHECK(cache.size() >= 9); // a shape or more for each algorithm and size
}
