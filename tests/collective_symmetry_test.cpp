// Stand-alone collectives fold as training steps do (#68,
// sim/run/collective_symmetry.h): one server of alike servers runs for all,
// checked against the full run (simulation.symmetry: off) to the
// picosecond at several sizes and server counts, under each library model;
// the folds that do not apply say why; past 256 ranks the algorithms trusted
// by construction still agree; the estimate counts the folded ranks.
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/config/cluster_config.h"
#include "sim/run/collective_symmetry.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"

using namespace collsim;
using collsim::testing::contains;
using collsim::testing::source;

namespace {

ClusterSetup clusterFile(const char* file, int servers, std::vector<std::string> sets = {}) {
  sets.push_back("servers=" + std::to_string(servers));
  return loadClusterFile(source(std::string("configs/clusters/") + file), sets);
}

CollectiveRun runOn(const ClusterSetup& setup, const std::string& algorithm, Bytes bytes, bool symmetry,
                    Collective op = Collective::AllReduce, Fidelity fidelity = Fidelity::Fast) {
  AlgorithmEntry entry = requireAlgorithm(op, algorithm, setup.cluster, "test");
  RunRequest req{op, &entry, DataType::Float32, bytes, Bytes(1) << 20, false};
  req.library = setup.library;
  req.roce = setup.roce;
  req.fidelity = fidelity;
  req.symmetry = symmetry;
  return simulateCollective(setup.cluster, req);
}

// The folded run is the full run: its time, messages and bytes.
void checkSameRun(const CollectiveRun& folded, const CollectiveRun& full) {
  CHECK(folded.execution.finish == full.execution.finish);
  CHECK(folded.execution.messages == full.execution.messages);
  CHECK(folded.execution.bytesSent == full.execution.bytesSent);
  CHECK(folded.execution.bytesReceived == full.execution.bytesReceived);
  CHECK(folded.protocol == full.protocol);
  CHECK(full.simulatedRanks == full.ranks);
}

} // namespace

TEST_CASE("a collective folds onto one server of alike servers and takes the full run's time to the picosecond") {
  // NCCL's channels and protocols (the H100 pair's file), HCCL's step
  // costs and buffer loops (Atlas), and the ideal library.
  // On an HCCS ring halving-doubling's pairs inside a server have two
  // ways round (a choice of paths): it is left to the NVSwitch servers.
  struct Case {
    std::string file;
    std::vector<std::string> sets, algorithms;
  };
  const std::vector<Case> cases = {{"h100-2x8-ib400.yaml", {}, {"ring", "rhd", "hier:ring+ring", "hier:nvls+ring"}},
                                   {"h100-2x8-ib400.yaml", {"library=ideal"}, {"ring", "rhd", "hier:ring+ring"}},
                                   {"atlas-2x8.yaml", {}, {"ring", "hier:ring+ring", "hier:ring+rhd"}}};
  for (const Case& c : cases) {
    for (int servers : {2, 4, 8}) {
      const ClusterSetup setup = clusterFile(c.file.c_str(), servers, c.sets);
      const int devices = setup.cluster.devicesPerServer;
      for (const std::string& algorithm : c.algorithms) {
        // 64 KiB splits evenly over 64 ranks' 16 channels; 24 MiB is not a
        // power of two (a tail loop under HCCL's buffer).
        for (Bytes bytes : {Bytes(64) << 10, Bytes(4) << 20, Bytes(24) << 20}) {
          CAPTURE(c.file);
          CAPTURE(servers);
          CAPTURE(algorithm);
          CAPTURE(bytes);
          const CollectiveRun folded = runOn(setup, algorithm, bytes, true);
          const CollectiveRun full = runOn(setup, algorithm, bytes, false);
          checkSameRun(folded, full);
          CHECK(folded.simulatedRanks == devices);
          CHECK(folded.execution.events < full.execution.events);
          CHECK(full.symmetry == "simulation.symmetry is off");
          // A ring moves along with s -> s + 1, halving-doubling with s xor 1
          // (on two servers the same move, found as s + 1).
          const bool xorMove = algorithm.find("rhd") != std::string::npos && servers > 2;
          CHECK(folded.symmetry ==
                "1 of " + std::to_string(servers) + " servers stands for all " + (xorMove ? "(s -> s xor 1)" : "(s -> s + 1)"));
        }
      }
    }
  }
}

TEST_CASE("where a collective does not look alike from every server it runs in full and says why") {
  const ClusterSetup h100 = clusterFile("h100-2x8-ib400.yaml", 4);
  // A tree's servers are leaves, inner nodes and a root.
  const CollectiveRun tree = runOn(h100, "tree", Bytes(4) << 20, true);
  CHECK(tree.simulatedRanks == 32);
  CHECK(tree.symmetry == "the tree schedule does not look alike from every server");
  // A broadcast's root stays where it is.
  const CollectiveRun broadcast = runOn(h100, "ring", Bytes(4) << 20, true, Collective::Broadcast);
  CHECK(broadcast.simulatedRanks == 32);
  // The packet model's queues and jitter are per port.
  const CollectiveRun packet = runOn(h100, "ring", Bytes(64) << 10, true, Collective::AllReduce, Fidelity::Packet);
  CHECK(packet.simulatedRanks == 32);
  CHECK(packet.symmetry == "the packet model's queues and jitter are per port");
  // One server: nothing to fold.
  CHECK(runOn(clusterFile("h100-2x8-ib400.yaml", 1), "ring", Bytes(1) << 20, true).symmetry == "one server");
  // A leaf-spine fabric's routes choose among spines by hashing node
  // numbers, which a shift of the servers does not keep.
  const ClusterSetup leafSpine = loadClusterFile(source("configs/clusters/atlas-4x8-leafspine-2to1.yaml"), {});
  const CollectiveRun spread = runOn(leafSpine, "ring", Bytes(1) << 20, true);
  CHECK(spread.simulatedRanks == spread.ranks);
  CHECK(contains(spread.symmetry, "a route has a choice of paths"));
  checkSameRun(spread, runOn(leafSpine, "ring", Bytes(1) << 20, false));
}

TEST_CASE("past 256 ranks a ring and halving-doubling fold by construction and still take the full run's time") {
  // 64 servers of 8: 512 ranks, past kLargestGroupChecked, so only the
  // representatives are checked against their images.
  const ClusterSetup setup = clusterFile("h100-2x8-ib400.yaml", 64, {"library=ideal"});
  for (const std::string algorithm : {"ring", "rhd", "hier:ring+ring"}) {
    CAPTURE(algorithm);
    const CollectiveRun folded = runOn(setup, algorithm, Bytes(2) << 20, true);
    CHECK(folded.simulatedRanks == 8);
    checkSameRun(folded, runOn(setup, algorithm, Bytes(2) << 20, false));
  }
  // 1 KiB over 512 ranks is 256 elements: some ranks' blocks hold an
  // element and others none, so the blocks are alike to an element, and the
  // fold says so. Each of the ring's 1,022 steps may then end an element's
  // time apart from the full run's slowest rank: 4 B take under 1 ns on any
  // link or channel here (each moves over 4 GB/s).
  const ClusterSetup nccl = clusterFile("h100-2x8-ib400.yaml", 64);
  const CollectiveRun uneven = runOn(nccl, "ring", Bytes(1) << 10, true);
  const CollectiveRun full = runOn(nccl, "ring", Bytes(1) << 10, false);
  CHECK(uneven.simulatedRanks == 8);
  CHECK(contains(uneven.symmetry, "its blocks alike to an element"));
  const double apartPs = std::abs(double(uneven.execution.finish) - double(full.execution.finish));
  CHECK(apartPs <= 1022 * 1000.0);
  CHECK(uneven.execution.messages == full.execution.messages);
}

TEST_CASE("the estimate of a folded collective counts the ranks that run") {
  const ClusterSetup setup = clusterFile("h100-2x8-ib400.yaml", 64, {"library=ideal"});
  const CollectiveEstimator estimate(setup.cluster);
  AlgorithmEntry ring = requireAlgorithm(Collective::AllReduce, "ring", setup.cluster, "test");
  RunRequest req{Collective::AllReduce, &ring, DataType::Float32, Bytes(64) << 20, Bytes(1) << 20, false};
  req.library = setup.library;
  const WorkEstimate folded = estimateCollectiveRun(estimate, setup.cluster, req);
  req.symmetry = false;
  const WorkEstimate full = estimateCollectiveRun(estimate, setup.cluster, req);
  // 8 of 512 ranks run: 1/64 of the events and lanes.
  CHECK(folded.events == doctest::Approx(full.events / 64).epsilon(1e-9));
  CHECK(folded.lanes == doctest::Approx(full.lanes / 64));
  // And the folded run's events within 2x of the estimate.
  req.symmetry = true;
  const CollectiveRun run = simulateCollective(setup.cluster, req);
  CHECK(double(run.execution.events) < 2 * folded.events);
  CHECK(double(run.execution.events) > folded.events / 2);
}
