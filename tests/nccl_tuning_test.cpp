// NCCL's own cost model (sim/nccl/nccl_tuning.h) against what it gives by
// hand from src/graph/tuning.cc's tables, and its picks against what NCCL
// printed on real machines (library_algorithms.h, NcclPicker).
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/validation/library_algorithms.h"

using namespace collsim;
using namespace collsim::testing;

namespace {
// A shipped cluster (configs/clusters/NAME.yaml) under an NCCL release.
ClusterSetup clusterAt(const char* name, const std::string& version) {
  return loadClusterFile(source(std::string("configs/clusters/") + name + ".yaml"), {"library.version=" + version});
}
NcclTuning tuningOf(const char* cluster, const std::string& version) {
  return NcclTuning(ncclTuningInputOf(clusterAt(cluster, version)));
}
} // namespace

// DGX A100 (dgx-a100-8: 24 channels of 240/24 = 10 GB/s), NCCL 2.19, ring
// AllReduce on 8 ranks (14 steps; algorithm bandwidth = bus x 8/14):
//   LL      bus min(87.7, 240/4) = 60      -> 34.286 GB/s; 6.6 + 14 x 0.6 = 15.0 us
//   LL128   bus min(240 x .92, 24 x 20)    -> 126.171;     14 + 14 x 1.9 = 40.6
//   Simple  bus 240                        -> 137.143;     8.4 + 14 x 3.4 = 56.0
// so LL up to 1.2 MB, LL128 to 24 MB, Simple past it: 1 MiB LL (45.6 us
// against 48.9 and 63.6), 4 MiB LL128 (73.8 against 137.3 and 86.6),
// 32 MiB Simple (300.7 against 306.5). From 2.22 ring LL takes half the
// links (bus 87.7: 50.1 GB/s), and 2 MiB stays LL (56.9 against 57.2).
TEST_CASE("NCCL's tuning model on a DGX A100: latencies, bandwidths and picks as tuning.cc gives them") {
  ClusterSetup a100 = clusterAt("dgx-a100-8", "2.19");
  NcclTuningInput in = ncclTuningInputOf(a100);
  CHECK(in.ring.channels == 24);
  CHECK(in.ring.bwIntra == doctest::Approx(10.0));
  CHECK(in.computeCapability == 80);
  NcclTuning t(in);
  CHECK(t.family() == "2.19-2.21");
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL).latencyUs == doctest::Approx(15.0));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL).bandwidthGBs == doctest::Approx(60.0 * 8 / 14));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL128).latencyUs == doctest::Approx(40.6));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL128).bandwidthGBs == doctest::Approx(240 * 0.92 * 8 / 14));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::Simple).latencyUs == doctest::Approx(56.0));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::Simple).bandwidthGBs == doctest::Approx(240.0 * 8 / 14));
  CHECK(*t.timeUs(NcclAlgo::Ring, Protocol::LL, 1 << 20) == doctest::Approx(15.0 + 1048576 / (1000 * 60.0 * 8 / 14)));
  NcclPicker picker(Collective::AllReduce, a100);
  auto protocolAt = [&](Bytes b) { return picker.pick({"ring"}, b).protocol; };
  CHECK(protocolAt(Bytes(1) << 20) == Protocol::LL);
  CHECK(protocolAt(Bytes(2) << 20) == Protocol::LL128);
  CHECK(protocolAt(Bytes(4) << 20) == Protocol::LL128);
  CHECK(protocolAt(Bytes(16) << 20) == Protocol::LL128);
  CHECK(protocolAt(Bytes(32) << 20) == Protocol::Simple);
  NcclPicker newer(Collective::AllReduce, clusterAt("dgx-a100-8", "2.26"));
  CHECK(newer.pick({"ring"}, Bytes(2) << 20).protocol == Protocol::LL);
  // NCCL_PROTO leaves the model its own choice among those allowed.
  NcclPicker simpleOnly(Collective::AllReduce,
                        loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {"library.protocol=Simple"}));
  CHECK(simpleOnly.pick({"ring"}, Bytes(1) << 20).protocol == Protocol::Simple);
  // An algorithm NCCL does not have is not rated.
  CHECK(picker.pick({"rhd"}, Bytes(1) << 20).algorithm.empty());
  CHECK_FALSE(picker.protocolFor("rhd", Bytes(1) << 20));
}

// One node of 8 H100 (dgx-h100-8; 16 channels of 370.8/16 GB/s), the newest
// model: ring LL bus min(141, 370.8/2) -> 141 x 8/14 = 80.57 GB/s after
// 15 us; NVLS 370.8 x 5/6 = 309 GB/s after 25 us (its NVLink step). At
// 1 MiB LL takes 28.0 us, NVLS 28.4; at 2 MiB 41.0 against 31.8. NCCL
// 2.2x on such a node chose Ring/LL for 8 B to 1 MB and NVLS with Simple
// from 2 MB (NVIDIA/nccl-tests issue #309, NCCL_DEBUG's algorithm lines).
TEST_CASE("NCCL's tuning model on one H100 node picks ring/LL to 1 MiB and NVLS from 2 MiB, as NCCL did") {
  ClusterSetup h100 = loadClusterFile(source("configs/clusters/dgx-h100-8.yaml"), {});
  NcclPicker picker(Collective::AllReduce, h100);
  const std::vector<std::string> candidates = ncclAlgorithms(Collective::AllReduce, h100.cluster);
  for (Bytes b = Bytes(64) << 10; b <= (Bytes(1) << 20); b *= 2) {
    CAPTURE(b);
    CHECK(picker.pick(candidates, b).algorithm == "ring");
    CHECK(picker.pick(candidates, b).protocol == Protocol::LL);
  }
  for (Bytes b = Bytes(2) << 20; b <= (Bytes(1) << 30); b *= 2) {
    CAPTURE(b);
    CHECK(picker.pick(candidates, b).algorithm == "nvls");
    CHECK(picker.pick(candidates, b).protocol == Protocol::Simple);
  }
  NcclTuning t(ncclTuningInputOf(h100));
  CHECK(t.cost(NcclAlgo::Nvls, Protocol::Simple).latencyUs == doctest::Approx(25.0));
  CHECK(t.cost(NcclAlgo::Nvls, Protocol::Simple).bandwidthGBs == doctest::Approx(370.8 * 5 / 6));
  CHECK_FALSE(t.timeUs(NcclAlgo::NvlsTree, Protocol::Simple, 1 << 20)); // off on one node
  CHECK_FALSE(t.timeUs(NcclAlgo::Nvls, Protocol::LL, 1 << 20));        // Simple only
}

// Two nodes of 8 H100 over 400G InfiniBand (h100-2x8-ib400; a channel gets
// min(370.8, 8 x 50)/16 = 23.175 GB/s): the tree's Simple changed in 2.23.
// 2.19-2.22: base 0, 28 us a step everywhere: 2 x (7 x 28 + 1 x 28) = 448 us;
// 2.23 on: base 8.4, 4 us over NVLink and 14 over the network:
// 8.4 + 2 x (7 x 4 + 14) = 92.4 us. The ring's crossings: 2 x 2 = 4 before
// 2.23, 2 x (2 - 1) = 2 from it (Simple: 26 x max(3.4, 3 x 1) + 4 x 14 =
// 152.8 + 8.4 us, against 28 x 3.4 + 2 x 14 = 123.2 + 8.4).
TEST_CASE("NCCL's tuning model across two H100 nodes: the releases' tables differ where tuning.cc changed") {
  auto tuning = [](const char* version) { return tuningOf("h100-2x8-ib400", version); };
  NcclTuning v21 = tuning("2.21"), v26 = tuning("2.26"), v18 = tuning("2.18"), between = tuning("2.14");
  CHECK(v21.cost(NcclAlgo::Tree, Protocol::Simple).latencyUs == doctest::Approx(448.0));
  CHECK(v26.cost(NcclAlgo::Tree, Protocol::Simple).latencyUs == doctest::Approx(92.4));
  CHECK(v21.cost(NcclAlgo::Ring, Protocol::Simple).latencyUs == doctest::Approx(8.4 + 26 * 3.4 + 4 * 14));
  CHECK(v26.cost(NcclAlgo::Ring, Protocol::Simple).latencyUs == doctest::Approx(8.4 + 28 * 3.4 + 2 * 14));
  CHECK(between.family() == "2.14-2.16");
  CHECK(tuning("2.17").family() == "2.18");
  CHECK(tuning("2.17").familyNote().find("not modelled: rated with 2.18's") != std::string::npos);
  CHECK(tuning("2.8").family() == "2.8-2.9");
  CHECK(tuning("2.8").familyNote().empty());
  CHECK(tuning("2.7").familyNote().find("rated with 2.8's") != std::string::npos);
  // Hopper came after 2.9: no LL128 for it there, LL128 from 2.15.
  CHECK_FALSE(tuning("2.9").ll128Enabled());
  CHECK_FALSE(between.ll128Enabled());
  CHECK(tuning("2.15").ll128Enabled());
  CHECK(v18.ll128Enabled());
  // 2.18's NVLS tree: 23 us plus 2 (nodes - 1) x 19; later 25 + 2 log2(nodes) x 14.
  CHECK(v18.cost(NcclAlgo::NvlsTree, Protocol::Simple).latencyUs == doctest::Approx(23.0 + 2 * 19));
  CHECK(v26.cost(NcclAlgo::NvlsTree, Protocol::Simple).latencyUs == doctest::Approx(25.0 + 2 * 14));
  CHECK(tuning("2.30").familyNote().find("rated with 2.27's") != std::string::npos);
}

// Two p4d (p4d-2x8-efa: 8 channels of 4 x 100 Gb/s x 0.64 / 8 = 4.0 GB/s)
// under NCCL 2.8, whose tables (the 2.8.3-1 release's src/graph/tuning.cc,
// the same through 2.9.9) rate a ring AllReduce on 16 ranks (30 steps, 2
// across the network; algorithm bandwidth = bus x 16/30) as:
//   LL      bus min(39 [Intel, 2 nodes], 32/4) = 8     -> 4.267 GB/s;
//           3.6 + 28 x (0.47 x 1.8) + 2 x 2.7 = 32.688 us
//   LL128   bus min(32 x .92, 8 x 16.9) = 29.44        -> 15.701; 10 + 28 x 1.9 + 2 x 4.0 = 71.2
//   Simple  bus 32                                     -> 17.067; 8.4 + 28 x 3.4 + 2 x 9.6 = 122.8,
//           x 1.9 from 16/16 x 64 KiB on (the plateau) = 233.32
// (2.18 would give LL128 14 + 26 x 1.9 + 4 x 4 = 79.4 us.) So LL to
// 128 KiB (63.4 us against 79.6), LL128 from 256 KiB (87.9 against 94.1)
// to 16 MiB (1139.7 against Simple's 1216.3), Simple at 32 MiB (2199.4
// against 2208.3). On one DGX A100 (24 channels of 10 GB/s) 2.8 caps
// Ampere's bus at 235 GB/s before the protocols' shares: ring LL 235/4.
TEST_CASE("NCCL 2.8-2.16's tables on two p4d: latencies, bandwidths and picks as each release's source gives them") {
  ClusterSetup p4d = clusterAt("p4d-2x8-efa", "2.8");
  NcclTuningInput in = ncclTuningInputOf(p4d);
  REQUIRE(in.ring.channels == 8);
  REQUIRE(in.ring.bwIntra == doctest::Approx(4.0));
  // NCCL's search raises a tree's rate inside the nodes to twice its rate
  // across them where NVLink allows (240 / 8 = 30 GB/s a channel): 8 GB/s,
  // what the model rates a tree by on two nodes; across, it stays 4.
  CHECK(in.tree.bwIntra == doctest::Approx(8.0));
  CHECK(in.tree.bwInter == doctest::Approx(4.0));
  CHECK(NcclPicker(Collective::AllReduce, p4d).rule().find("a tree's 8.0 inside the nodes") != std::string::npos);
  NcclTuning t(in);
  CHECK(t.family() == "2.8-2.9");
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL).latencyUs == doctest::Approx(32.688));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL).bandwidthGBs == doctest::Approx(8.0 * 16 / 30));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL128).latencyUs == doctest::Approx(71.2));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::LL128).bandwidthGBs == doctest::Approx(29.44 * 16 / 30));
  CHECK(t.cost(NcclAlgo::Ring, Protocol::Simple).latencyUs == doctest::Approx(122.8));
  CHECK(*t.timeUs(NcclAlgo::Ring, Protocol::Simple, Bytes(32) << 10) == doctest::Approx(122.8 + 32768 / (1000 * 32.0 * 16 / 30)));
  CHECK(*t.timeUs(NcclAlgo::Ring, Protocol::Simple, Bytes(64) << 10) == doctest::Approx(233.32 + 65536 / (1000 * 32.0 * 16 / 30)));
  CHECK_FALSE(t.timeUs(NcclAlgo::Nvls, Protocol::Simple, 1 << 20)); // no NVLS before 2.17
  NcclPicker picker(Collective::AllReduce, p4d);
  auto protocolAt = [&](Bytes b) { return picker.pick({"ring"}, b).protocol; };
  CHECK(protocolAt(Bytes(128) << 10) == Protocol::LL);
  CHECK(protocolAt(Bytes(256) << 10) == Protocol::LL128);
  CHECK(protocolAt(Bytes(16) << 20) == Protocol::LL128);
  CHECK(protocolAt(Bytes(32) << 20) == Protocol::Simple);
  CHECK(tuningOf("p4d-2x8-efa", "2.18").cost(NcclAlgo::Ring, Protocol::LL128).latencyUs == doctest::Approx(79.4));
  // The later tables before 2.18 on the same two p4d: 2.10 as 2.8 but
  // LL128's tree at 120/128 (tree bus min(8 x 8 x .92, 8 x 23.6) = 58.88,
  // 2.8: x 0.915 = 26.94 GB/s after the tree's 1/2, 2.10: 27.6); 2.12 crosses
  // nodes 2 x 2 = 4 times, its network Simple step 28 us (LL
  // 3.6 + 26 x 0.846 + 4 x 2.7 = 36.396, LL128 10 + 26 x 1.9 + 4 x 4 = 75.4,
  // Simple 8.4 + 26 x 3.4 + 4 x 28 = 208.8); 2.14 back to 9.6 (135.2).
  NcclTuning v10 = tuningOf("p4d-2x8-efa", "2.10"), v12 = tuningOf("p4d-2x8-efa", "2.12"),
             v14 = tuningOf("p4d-2x8-efa", "2.14");
  CHECK(v10.family() == "2.10-2.11");
  CHECK(t.cost(NcclAlgo::Tree, Protocol::LL128).bandwidthGBs == doctest::Approx(58.88 * 0.915 / 2));
  CHECK(v10.cost(NcclAlgo::Tree, Protocol::LL128).bandwidthGBs == doctest::Approx(58.88 * 120 / 128 / 2));
  CHECK(v10.cost(NcclAlgo::Ring, Protocol::LL128).latencyUs == doctest::Approx(71.2));
  CHECK(v12.cost(NcclAlgo::Ring, Protocol::LL).latencyUs == doctest::Approx(36.396));
  CHECK(v12.cost(NcclAlgo::Ring, Protocol::LL128).latencyUs == doctest::Approx(75.4));
  CHECK(v12.cost(NcclAlgo::Ring, Protocol::Simple).latencyUs == doctest::Approx(208.8));
  CHECK(v14.cost(NcclAlgo::Ring, Protocol::Simple).latencyUs == doctest::Approx(135.2));
  NcclTuning a100 = tuningOf("dgx-a100-8", "2.9");
  CHECK(a100.cost(NcclAlgo::Ring, Protocol::LL).bandwidthGBs == doctest::Approx(235.0 / 4 * 8 / 14));
  CHECK(a100.cost(NcclAlgo::Ring, Protocol::Simple).bandwidthGBs == doctest::Approx(235.0 * 8 / 14));
}

TEST_CASE("library.version is a 2.x release, refused with its location otherwise") {
  for (const char* bad : {"3.1", "2", "2.x", "2.19beta", "-2.19"}) {
    CAPTURE(bad);
    std::string expected = "--set library.version=" + std::string(bad) + ": library.version: expected a 2.x release";
    CHECK_THROWS_WITH_AS(loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {std::string("library.version=") + bad}),
                         doctest::Contains(expected.c_str()), ConfigError);
  }
  CHECK(loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {"library.version=2.26.6"}).library.version == 26);
}
