// Ring collectives against their alpha-beta closed forms.
//
// On a ring of p devices each ring step moves one block to the neighbour
// over one link: alpha = link latency, beta = 1 / link bandwidth. With no
// step overhead and free reductions, Ring AllReduce takes 2(p-1) steps of
// alpha + (n/p) beta:  T = 2(p-1)(alpha + n / (p B)).
// When p does not divide n the largest block has ceil(n/p) elements, which
// is what the simulation times; the formula uses n/p, so they differ by at
// most one element per step, far below 1 %.
#include <doctest/doctest.h>

#include "relative_error.h"
#include "test_support.h"

#include <cmath>

#include "sim/run/simulate.h"
#include "topologies/server_shapes.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

Cluster ring(int p) { return collsim::testing::hccsRing(p); }

CollectiveRun simulate(const Cluster& c, Collective op, Bytes bytes, DataType dtype) {
  AlgorithmEntry ring = *findAlgorithm(op, "ring");
  RunRequest req{op, &ring, dtype, bytes, 1_MiB, true};
  return simulateCollective(c, req);
}

} // namespace

TEST_CASE("Ring AllReduce matches 2(p-1)(alpha + n/(pB)) within 1 %") {
  const double alpha = 1e-6, B = 12e9;
  for (int p : {2, 3, 4, 8, 16}) {
    Cluster c = ring(p);
    for (Bytes n : {Bytes(1_KiB), Bytes(4_KiB), Bytes(1'000'003), Bytes(1_MiB), Bytes(64_MiB), Bytes(1_GiB)}) {
      DataType dtype = n % 4 ? DataType::Int8 : DataType::Float32;
      CollectiveRun run = simulate(c, Collective::AllReduce, n, dtype);
      double closed = 2.0 * (p - 1) * (alpha + double(n) / (p * B));
      CAPTURE(p);
      CAPTURE(n);
      CHECK_WITHIN(run.execution.finish * 1e-12, closed, 0.01);
      // Invariants: every byte sent is received, 2(p-1) sends per rank.
      CHECK(run.execution.bytesSent == run.execution.bytesReceived);
      CHECK(run.execution.messages == std::uint64_t(2 * (p - 1) * p));
    }
  }
}

TEST_CASE("Ring ReduceScatter and AllGather each take half of the AllReduce") {
  const double alpha = 1e-6, B = 12e9;
  for (int p : {3, 8}) {
    Cluster c = ring(p);
    for (Bytes n : {Bytes(64_KiB), Bytes(64_MiB)}) {
      double closed = (p - 1) * (alpha + double(n) / (p * B));
      for (Collective op : {Collective::ReduceScatter, Collective::AllGather}) {
        CollectiveRun run = simulate(c, op, n, DataType::Float32);
        CAPTURE(p);
        CAPTURE(n);
        CHECK_WITHIN(run.execution.finish * 1e-12, closed, 0.01);
      }
    }
  }
}

TEST_CASE("the reduction cost adds (p-1)/p n gamma when the device reduces serially") {
  // gamma = 1 / reduce bandwidth. Each of the p-1 reduce-scatter steps
  // reduces n/p bytes after they arrive, before the next step can send.
  Cluster c = ring(4);
  c.device.reduceBandwidth = 100_GBps;
  const double p = 4, n = double(64_MiB), alpha = 1e-6, beta = 1 / 12e9, gamma = 1 / 100e9;
  CollectiveRun run = simulate(c, Collective::AllReduce, 64_MiB, DataType::Float32);
  double closed = 2 * (p - 1) * alpha + 2 * (p - 1) / p * n * beta + (p - 1) / p * n * gamma;
  CHECK_WITHIN(run.execution.finish * 1e-12, closed, 0.01);
}

TEST_CASE("a per-step overhead adds to every step") {
  Cluster c = ring(8);
  c.device.stepOverhead = 5_us;
  CollectiveRun plain = simulate(ring(8), Collective::AllReduce, 8_MiB, DataType::Float32);
  CollectiveRun slow = simulate(c, Collective::AllReduce, 8_MiB, DataType::Float32);
  // 2(p-1) = 14 steps, each 5 us later.
  CHECK(slow.execution.finish - plain.execution.finish == 14 * 5_us);
}

TEST_CASE("the segment size does not change a contention-free ring") {
  Cluster c = ring(8);
  auto at = [&](Bytes seg) {
    AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32,
                   16_MiB, seg, false};
    return simulateCollective(c, req).execution.finish;
  };
  double fast = double(at(1_MiB)), packet = double(at(4_KiB));
  CHECK_WITHIN(fast, packet, 0.001);
}

TEST_CASE("runs are deterministic") {
  Cluster c = ring(5);
  auto a = simulate(c, Collective::AllReduce, 1'000'003, DataType::Int8);
  auto b = simulate(c, Collective::AllReduce, 1'000'003, DataType::Int8);
  CHECK(a.execution.finish == b.execution.finish);
  CHECK(a.execution.events == b.execution.events);
  CHECK(a.execution.rankFinish == b.execution.rankFinish);
}
