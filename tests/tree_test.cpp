// NCCL's tree across servers ("tree") and the pieces that algorithms which
// pipeline themselves cut under a library's chunk.
#include <doctest/doctest.h>

#include <chrono>

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/registry.h"
#include "algorithms/transports/threads/run_threads.h"

using namespace collsim;

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
