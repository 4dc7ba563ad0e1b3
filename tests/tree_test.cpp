// NCCL's tree across servers ("tree") and the pieces that algorithms which
// pipeline themselves cut under a library's chunk.
#include <doctest/doctest.h>

#include <chrono>

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/pipeline.h"
#include "algorithms/core/registry.h"
#include "algorithms/flat/lockstep_trees.h"
#include "algorithms/hierarchical/hierarchical.h"
#include "algorithms/transports/threads/run_threads.h"
#include "sim/executor/schedule_executor.h"
#include "sim/network/link_network.h"
#include "topologies/multi_server.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

CollectiveSpec layout(int servers, int devices, std::uint64_t count, std::uint64_t chunkBytes = 0) {
  CollectiveSpec spec{Collective::AllReduce, servers * devices, count, 4, 0, servers > 1 ? devices : 0};
  spec.chunkBytes = chunkBytes;
  return spec;
}

} // namespace

TEST_CASE("the tree is correct on every server layout, with and without a library chunk") {
  const AlgorithmEntry tree = *findAlgorithm(Collective::AllReduce, "tree");
  for (int servers = 1; servers <= 9; ++servers)
    for (int devices = 1; devices <= 8; ++devices)
      for (std::uint64_t count : {0, 1, 7, 100}) {
        // A 64-byte chunk cuts 100 floats into several pieces per tree.
        for (std::uint64_t chunk : {0, 64}) {
          CollectiveSpec spec = layout(servers, devices, count, chunk);
          CheckReport r = checkSchedule(*buildSchedule(tree, spec), spec);
          if (!r.ok()) {
            CAPTURE(servers);
            CAPTURE(devices);
            CAPTURE(count);
            CAPTURE(chunk);
            FAIL_CHECK(r.summary());
          }
        }
      }
}

TEST_CASE("the tree computes real sums on threads across servers") {
  const AlgorithmEntry tree = *findAlgorithm(Collective::AllReduce, "tree");
  for (std::pair<int, int> shape : {std::pair{2, 4}, std::pair{3, 2}, std::pair{5, 3}}) {
    int servers = shape.first, devices = shape.second; // not a structured binding: Clang 14 cannot CAPTURE one
    CollectiveSpec spec = layout(servers, devices, 1001, 256);
    RunOptions options{DataType::Float32, ReduceOp::Sum, std::chrono::milliseconds(20'000)};
    RealRunReport r = runWithThreads(*buildSchedule(tree, spec), spec, options);
    CAPTURE(servers);
    CAPTURE(devices);
    CHECK(r.ok());
  }
}

// One server of 4 is a chain of depth 3 (tree A from device 0, tree B from
// device 3); each tree carries half of 8 MiB. A leaf or the root takes 2C
// steps of a tree (C up, C down). NCCL's rule halves a 1 MiB chunk while
// the tree gets fewer than 8 x 3 = 24 chunks and it is above 128 KiB:
// 4 MiB / 1 MiB = 4, 8, 16 (256 KiB), 32 at 128 KiB: C = 32. Without a
// library chunk, pieces of 64 KiB (at most 64): C = 64.
TEST_CASE("tree chunks follow NCCL's rule under a library chunk") {
  const AlgorithmEntry tree = *findAlgorithm(Collective::AllReduce, "tree");
  const std::uint64_t count = 2 * 1024 * 1024; // 8 MiB of floats
  SchedulePtr library = buildSchedule(tree, layout(1, 4, count, 1 << 20));
  REQUIRE(library->streamCount() == 2);
  CHECK(library->stream(0).stepCount(0) == 2 * 32); // rank 0: the root of tree A
  CHECK(library->stream(1).stepCount(0) == 2 * 32); // and a leaf of tree B
  CHECK(library->stream(0).stepCount(1) == 2 * 33); // inner: one step more each way
  SchedulePtr own = buildSchedule(tree, layout(1, 4, count));
  CHECK(own->stream(0).stepCount(0) == 2 * 64);
}

// hierpipe cuts one slice per server's devices x chunk: 8 MiB over 4
// devices and a 256 KiB chunk is 8 slices (streams); 4 without a library.
TEST_CASE("hierpipe and nvls slice per library chunk") {
  const AlgorithmEntry hierpipe = *findAlgorithm(Collective::AllReduce, "hierpipe:ring+ring");
  const std::uint64_t count = 2 * 1024 * 1024;
  CHECK(buildSchedule(hierpipe, layout(2, 4, count, 256 * 1024))->streamCount() == 8);
  CHECK(buildSchedule(hierpipe, layout(2, 4, count))->streamCount() == 4);
  // A slice fewer than one chunk: one stream, no waits.
  CHECK(buildSchedule(hierpipe, layout(2, 4, 1000, 256 * 1024))->streamCount() == 1);
  const AlgorithmEntry nvls = *findAlgorithm(Collective::AllReduce, "nvls");
  CHECK(buildSchedule(nvls, layout(1, 8, count, 128 * 1024))->streamCount() == 8);
}

TEST_CASE("a tree AllReduce's reduce up and broadcast down, run in order, are the whole") {
  for (int p = 1; p <= 9; ++p) {
    CAPTURE(p);
    CollectiveSpec spec = layout(1, p, 1001);
    GroupView g = GroupView::whole(spec);
    SchedulePtr whole = lockstepDoubleTreeAllReduce(g, spec), up = lockstepDoubleTreeAllReduce(g, spec, TreeHalves::Up),
                down = lockstepDoubleTreeAllReduce(g, spec, TreeHalves::Down);
    for (int rank = 0; rank < p; ++rank) {
      REQUIRE(up->stepCount(rank) + down->stepCount(rank) == whole->stepCount(rank));
      for (int step = 0; step < whole->stepCount(rank); ++step) {
        std::vector<Op> a, b;
        whole->appendOps(rank, step, a);
        if (step < up->stepCount(rank))
          up->appendOps(rank, step, b);
        else
          down->appendOps(rank, step - up->stepCount(rank), b);
        CHECK(a == b);
      }
    }
  }
}

// Four servers of one device on the binary tree 0 <- {1, 2}, 1 <- 3 (depth
// H = 2; the mirrored tree too); each hop a message of a few bytes: device
// -> switch -> device, two 1 us links (hop h = 2 us, serialization a few
// ns). Eight slices (K), each AllReduced on the trees. A send completes when
// it arrives, one hop after it is posted.
//   One stage per slice: a leaf sends slice k up only once slice k-1 has
//   come back down to it, 2H hops later; the slices go round one after
//   another: K 2H h = 64 us and the serializations.
//   Up and down as stages: a slice climbs as soon as the one before has
//   left each rank. In lockstep the two trees share a rank's steps, and a
//   rank's stage is a receive step and a send step, so a slice leaves a rank
//   every 2 h: the first slice's round trip, 2H h, and 2 h for each other
//   slice: 8 + 7 x 4 = 36 us and the serializations (under 1 us).
TEST_CASE("pipelined, a slice climbs the tree while the slice before comes down") {
  ClusterParams params;
  params.servers = 4;
  params.server.devices = 1;
  params.nic.roce = {100_Gbps, 1_us};
  const Cluster c = buildCluster(params);
  const int slices = 8;
  CollectiveSpec spec = layout(4, 1, 16 * slices);
  auto finish = [&](bool apart) {
    GroupView g = GroupView::whole(spec);
    std::vector<std::vector<SchedulePtr>> stages;
    for (int k = 0; k < slices; ++k) {
      GroupView slice = g.sub(blockOf(g.count(), slices, k));
      stages.emplace_back();
      if (apart) {
        stages.back().push_back(lockstepDoubleTreeAllReduce(slice, spec, TreeHalves::Up));
        stages.back().push_back(lockstepDoubleTreeAllReduce(slice, spec, TreeHalves::Down));
      } else {
        stages.back().push_back(lockstepDoubleTreeAllReduce(slice, spec));
      }
    }
    SchedulePtr s = pipeline(std::move(stages));
    CheckReport r = checkSchedule(*s, spec);
    CHECK_MESSAGE(r.ok(), r.summary());
    EventEngine engine;
    LinkNetwork net(engine, c, 4096, 1_MiB);
    ScheduleExecutor ex(engine, net, c, *s);
    ex.run();
    return double(engine.now()) * 1e-12;
  };
  const double hop = 2e-6, depth = 2;
  const double together = finish(false), apart = finish(true);
  CHECK(together >= slices * 2 * depth * hop);
  CHECK(together < slices * 2 * depth * hop + 1e-6);
  CHECK(apart >= 2 * depth * hop + (slices - 1) * 2 * hop);
  CHECK(apart < 2 * depth * hop + (slices - 1) * 2 * hop + 1e-6);
}

TEST_CASE("hierpipe runs a tree between servers as two stages, a plain hierarchy as one phase") {
  const AlgorithmEntry tree = *findAlgorithm(Collective::AllReduce, "tree");
  CHECK(stagesOf(tree, true).size() == 2);
  CHECK(stagesOf(tree, false).size() == 1);
  CHECK(stagesOf(*findAlgorithm(Collective::AllReduce, "ring"), true).size() == 1);
  // hierpipe:ring+tree on 4 x 2, 4 slices (a stream each), its tree split:
  // still an AllReduce to the symbolic checker.
  const CollectiveSpec spec = layout(4, 2, 4096);
  SchedulePtr piped = buildSchedule(*findAlgorithm(Collective::AllReduce, "hierpipe:ring+tree"), spec);
  CHECK(piped->streamCount() == 4);
  CheckReport r = checkSchedule(*piped, spec);
  CHECK_MESSAGE(r.ok(), r.summary());
}
