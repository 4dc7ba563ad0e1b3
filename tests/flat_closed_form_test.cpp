// Every flat algorithm against its own closed form on a contention-free
// full mesh (alpha = link latency, beta = 1/bandwidth, no reduction cost),
// where each step's transfers use distinct links. The formulas are derived
// in each algorithm's opening comment; here a few are written out again:
//   RHD AllReduce, p = 8:  2 log2(8) a + 2 (7/8) n b
//   RHD AllReduce, p = 6 (p' = 4): (2*2 + 2) a + (2 (3/4) + 2) n b
//   Mesh AllReduce:        2 a + (2/p) n b
//   NHR / NB AllReduce:    2 ceil(log2 p) a + 2 (p-1)/p n b
#include <doctest/doctest.h>

#include "relative_error.h"

#include "sim/run/simulate.h"
#include "topologies/server_shapes.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

Cluster mesh(int p) {
  ServerParams s;
  s.devices = p;
  s.shape = HccsShape::Mesh;
  s.hccs = {12_GBps, 1_us};
  return buildServer(s);
}

double simulatedSeconds(const Cluster& c, const AlgorithmEntry& algo, Bytes bytes) {
  RunRequest req{algo.op, &algo, DataType::Int8, bytes, 1_MiB, true};
  return simulateCollective(c, req).execution.finish * 1e-12;
}

} // namespace

TEST_CASE("hand-derived cases") {
  const double a = 1e-6, b = 1 / 12e9, n = double(64_MiB);
  CHECK_WITHIN(simulatedSeconds(mesh(8), *findAlgorithm(Collective::AllReduce, "rhd"), 64_MiB), 6 * a + 2 * 7.0 / 8 * n * b, 0.01);
  CHECK_WITHIN(simulatedSeconds(mesh(6), *findAlgorithm(Collective::AllReduce, "rhd"), 64_MiB), 6 * a + (2 * 3.0 / 4 + 2) * n * b, 0.01);
  CHECK_WITHIN(simulatedSeconds(mesh(8), *findAlgorithm(Collective::AllReduce, "mesh"), 64_MiB), 2 * a + 2.0 / 8 * n * b, 0.01);
  CHECK_WITHIN(simulatedSeconds(mesh(7), *findAlgorithm(Collective::AllReduce, "nhr"), 64_MiB), 2 * 3 * a + 2 * 6.0 / 7 * n * b, 0.01);
}

static bool isPowerOfTwo(int p) { return (p & (p - 1)) == 0; }

// On a full mesh no step puts two transfers on one link, so every step costs
// alpha + (its largest transfer) beta and the closed forms are exact.
// Exception: RHD ReduceScatter/AllGather on p not a power of two swap
// unequal halves (a folded pair's participant stands for two blocks); their
// registry formula is an estimate, and the checker and the threads transport
// cover their correctness. Likewise the double binary tree at p = 3, where
// both trees are chains that must share one link in one direction.
TEST_CASE("every algorithm matches its registry closed form on a full mesh") {
  const CostModel model{1e-6, 1 / 12e9, 0};
  for (const AlgorithmEntry& algo : algorithmRegistry()) {
    for (int p : {2, 3, 5, 8, 12}) {
      std::string name = algo.name;
      bool estimate = (name == "rhd" && algo.op != Collective::AllReduce && !isPowerOfTwo(p)) ||
                      (name == "dbtree" && algo.op == Collective::AllReduce && p == 3);
      if (estimate) continue;
      Cluster c = mesh(p);
      for (Bytes n : {Bytes(4_KiB), Bytes(1'000'003), Bytes(64_MiB)}) {
        std::string op = collectiveName(algo.op), name = algo.name;
        CAPTURE(op);
        CAPTURE(name);
        CAPTURE(p);
        CAPTURE(n);
        double closed = algo.cost(p, double(n), model);
        CHECK_WITHIN(simulatedSeconds(c, algo, n), closed, 0.01);
      }
    }
  }
}
