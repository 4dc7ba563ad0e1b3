// NCCL's chunk ladders for NVLS and its tree (sim/run/in_network_chunk.h)
// against what src/enqueue.cc gives by hand, release by release, and the
// simulated runs that slice by them.
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/config/cluster_config.h"
#include "sim/run/in_network_chunk.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

constexpr Bytes KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// An H100 node's NVLS: 16 channels x 8 heads = 128 concurrent ops.
Bytes chunkOf(InNetworkPattern pattern, int minor, int nodes, Bytes bytes, double rateGBs = 400) {
  InNetworkChunkInput in;
  in.minor = minor;
  in.pattern = pattern;
  in.nodes = nodes;
  in.bytes = bytes;
  in.channels = 16;
  in.heads = 8;
  in.nvlsRateGBs = rateGBs;
  return ncclInNetworkChunk(in);
}

} // namespace

// NVLS tree, 2.26 (start at NCCL_NVLS_CHUNKSIZE, 128 KiB; ops 128):
//   1 GiB:  not below 16 x 128 x 128 KiB = 256 MiB: 128 KiB
//   64 MiB: not below 4 x 128 x 128 KiB = 64 MiB (equal): 128 KiB
//   32 MiB: below 64 MiB: 64 KiB; not below 1 x 128 x 64 KiB = 8 MiB
//   8 MiB:  64 KiB (equal to 8 MiB, not below); 4 MiB: 32 KiB
//   4 nodes: at most 64 KiB from the start, 1 GiB keeps it
// 2.18 and 2.20 start at Simple's step (512 KiB): 1 GiB is below
// 32 x 128 x 512 KiB = 2 GiB, so 256 KiB, not below 16 x 128 x 256 KiB;
// 2.18 has no cap on 4 nodes, 2.19 and 2.20 do.
TEST_CASE("NCCL's NVLS tree chunk: the ladder of enqueue.cc, and 64 KiB from 4 nodes since 2.19") {
  auto tree = [](int minor, int nodes, Bytes bytes) { return chunkOf(InNetworkPattern::NvlsTree, minor, nodes, bytes); };
  CHECK(tree(26, 2, GiB) == 128 * KiB);
  CHECK(tree(26, 2, 64 * MiB) == 128 * KiB);
  CHECK(tree(26, 2, 32 * MiB) == 64 * KiB);
  CHECK(tree(26, 2, 8 * MiB) == 64 * KiB);
  CHECK(tree(26, 2, 4 * MiB) == 32 * KiB);
  CHECK(tree(26, 4, GiB) == 64 * KiB);
  CHECK(tree(26, 3, GiB) == 128 * KiB);
  CHECK(tree(0, 4, GiB) == 64 * KiB); // the newest modelled
  CHECK(tree(18, 2, GiB) == 256 * KiB);
  CHECK(tree(18, 4, GiB) == 256 * KiB);
  CHECK(tree(19, 4, GiB) == 64 * KiB);
  CHECK(tree(20, 2, GiB) == 256 * KiB);
  CHECK(tree(20, 4, GiB) == 64 * KiB);
  // NCCL_NVLS_CHUNKSIZE counts from 2.21: 256 KiB at 1 GiB is not below
  // 32 x 128 x 256 KiB = 1 GiB (equal), nor 16 x: it stays.
  InNetworkChunkInput in;
  in.minor = 21, in.pattern = InNetworkPattern::NvlsTree, in.nodes = 2, in.bytes = GiB;
  in.channels = 16, in.heads = 8, in.nvlsChunk = 256 * KiB;
  CHECK(ncclInNetworkChunk(in) == 256 * KiB);
  in.minor = 20;
  CHECK(ncclInNetworkChunk(in) == 256 * KiB); // from Simple's step, as it happens
  in.bytes = 256 * MiB;
  CHECK(ncclInNetworkChunk(in) == 128 * KiB); // below 16 x 128 x 256 KiB = 512 MiB
}

// NVLS (one node; across nodes only with CollNet), 2.26, ops 128:
//   1 GiB:   128 KiB (not below 64 x 128 x 128 KiB = 1 GiB)
//   256 MiB: 64 KiB; not below 8 x 128 x 64 KiB = 64 MiB
//   32 MiB:  64 KiB, then 32 KiB; not below 2 x 128 x 32 KiB = 8 MiB
//   4 MiB:   16 KiB
// Across nodes with NVLS rated below 150 GB/s: at most 32 KiB (2.19+).
TEST_CASE("NCCL's NVLS chunk: 128 KiB at most, its ladder, and 32 KiB across slow nodes since 2.19") {
  auto nvls = [](int minor, int nodes, Bytes bytes, double rate) {
    return chunkOf(InNetworkPattern::Nvls, minor, nodes, bytes, rate);
  };
  CHECK(nvls(26, 1, GiB, 400) == 128 * KiB);
  CHECK(nvls(26, 1, 256 * MiB, 400) == 64 * KiB);
  CHECK(nvls(26, 1, 32 * MiB, 400) == 32 * KiB);
  CHECK(nvls(26, 1, 4 * MiB, 400) == 16 * KiB);
  CHECK(nvls(26, 1, GiB, 40) == 128 * KiB); // one node: the rate does not count
  CHECK(nvls(26, 2, GiB, 40) == 32 * KiB);
  CHECK(nvls(26, 2, GiB, 160) == 128 * KiB);
  CHECK(nvls(18, 2, GiB, 40) == 128 * KiB);
}

// The runs slice by it when asked (library.chunk_ladder): on 4 H100
// servers the NVLS tree's 128 KiB is capped at 64 KiB, so asking for 64 KiB
// changes nothing; on 2 servers it does. Without the ladder, 128 KiB holds
// on 4 servers too.
TEST_CASE("a simulated NVLS tree slices by NCCL's chunk when asked: capped on 4 nodes, not on 2") {
  auto finish = [](int servers, bool ladder, const char* chunk) {
    std::vector<std::string> sets = {"servers=" + std::to_string(servers), "library.version=2.26",
                                     std::string("library.chunk_ladder=") + (ladder ? "true" : "false")};
    if (chunk) sets.push_back(std::string("library.nvls_chunk=") + chunk);
    ClusterSetup h100 = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), sets);
    AlgorithmEntry a = requireAlgorithm(Collective::AllReduce, "hierpipe:nvls+tree", h100.cluster, "--algo");
    RunRequest req{Collective::AllReduce, &a, DataType::Float32, 256 * MiB, MiB, false};
    req.library = h100.library;
    CollectiveRun run = simulateCollective(h100.cluster, req);
    CHECK(run.execution.bytesSent == run.execution.bytesReceived);
    return run.execution.finish;
  };
  CHECK(finish(4, true, nullptr) == finish(4, true, "64KiB"));
  CHECK(finish(2, true, nullptr) != finish(2, true, "64KiB"));
  CHECK(finish(4, false, nullptr) != finish(4, false, "64KiB"));
}

TEST_CASE("nvls_tree_max_chunk where it cannot act is said, not dropped: the ladder off, or before NCCL 2.20") {
  using collsim::testing::cli;
  using collsim::testing::contains;
  const std::string cluster = collsim::testing::source("configs/clusters/h100-2x8-ib400.yaml");
  auto perf = [&](std::vector<std::string> sets) {
    std::vector<std::string> args{"perf", "--cluster", cluster, "-b", "1MiB", "-e", "1MiB",
                                  "--set", "library.nvls_tree_max_chunk=64KiB"};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    auto r = cli(args);
    REQUIRE(r.status == 0);
    return r.out;
  };
  CHECK(contains(perf({}), "# note: library.nvls_tree_max_chunk caps NCCL's chunk ladder, which is off"));
  CHECK(contains(perf({"library.chunk_ladder=true", "library.version=2.19"}),
                 "# note: library.nvls_tree_max_chunk (NCCL_NVLSTREE_MAX_CHUNKSIZE) came with NCCL 2.20; "
                 "library.version 2.19 ignores it"));
  CHECK(!contains(perf({"library.chunk_ladder=true", "library.version=2.20"}), "# note: library.nvls_tree_max_chunk"));
}
