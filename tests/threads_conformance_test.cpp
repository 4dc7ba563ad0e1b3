// The same schedules on real data: one thread per rank, real sums.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "algorithms/core/compose.h"
#include "algorithms/core/registry.h"
#include "algorithms/transports/threads/run_threads.h"
#include "sim/executor/schedule_executor.h"
#include "sim/network/link_network.h"
#include "topologies/server_shapes.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

RealRunReport runReal(const AlgorithmEntry& algo, int p, std::uint64_t count, DataType type, ReduceOp op) {
  CollectiveSpec spec{algo.op, p, count, dataTypeInfo(type).bytes, p > 2 ? 2 : 0};
  SchedulePtr schedule = buildSchedule(algo, spec);
  RunOptions options{type, op, std::chrono::milliseconds(20'000)};
  return runWithThreads(*schedule, spec, options);
}

} // namespace

TEST_CASE("every algorithm computes exact results through the threads transport") {
  auto started = std::chrono::steady_clock::now();
  int runs = 0;
  for (const AlgorithmEntry& algo : algorithmRegistry()) {
    for (int p : {1, 2, 3, 5, 6, 7, 8, 12, 13, 16}) {
#if defined(COLLSIM_TSAN) || defined(COLLSIM_ASAN)
      // Sanitizers: the same synchronization, without the large buffers they make 10-30x slower.
      for (std::uint64_t count : {0ULL, 1ULL, 7ULL, 1000ULL}) {
#else
      for (std::uint64_t count : {0ULL, 1ULL, 7ULL, 1000ULL, 100003ULL}) {
#endif
        RealRunReport r = runReal(algo, p, count, DataType::Float32, ReduceOp::Sum);
        ++runs;
        if (!r.ok()) {
          std::string op = collectiveName(algo.op), name = algo.name;
          CAPTURE(op);
          CAPTURE(name);
          CAPTURE(p);
          CAPTURE(count);
          CAPTURE(r.wrong);
          CAPTURE(r.firstWrong);
          std::string why = r.errors.empty() ? std::string("wrong results") : r.errors.front();
          FAIL_CHECK(why);
        }
      }
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  MESSAGE(runs << " conformance runs in " << seconds << " s");
}

TEST_CASE("int8 and max/min reductions, and a different root") {
  for (const AlgorithmEntry& algo : algorithmRegistry()) {
    for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
      RealRunReport r = runReal(algo, 7, 1001, DataType::Int8, op);
      std::string name = algo.name, coll = collectiveName(algo.op);
      CAPTURE(coll);
      CAPTURE(name);
      CHECK_MESSAGE(r.ok(), r.firstWrong);
    }
  }
}

TEST_CASE("a broken schedule gives wrong numbers, not a pass") {
  // Ring AllReduce with one reduce turned into an overwrite: the threads
  // transport must see the lost contribution in the data.
  CollectiveSpec spec{Collective::AllReduce, 4, 1000, 4, 0};
  auto steps = materialize(*buildSchedule(*findAlgorithm(Collective::AllReduce, "ring"), spec));
  for (auto& op : steps[0][1])
    if (op.kind == OpKind::RecvReduce) op.kind = OpKind::Recv;
  RealRunReport r = runWithThreads(ExplicitSchedule(steps), spec, RunOptions{});
  CHECK(r.wrong > 0);
}

TEST_CASE("a receive nobody sends to times out instead of hanging") {
  CollectiveSpec spec{Collective::AllGather, 2, 4, 4, 0};
  MaterializedSchedule steps = {{{{OpKind::Recv, 1, 4, 4}}}, {}};
  RunOptions options;
  options.timeout = std::chrono::milliseconds(200);
  RealRunReport r = runWithThreads(ExplicitSchedule(steps), spec, options);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors.front().find("still open") != std::string::npos);
}

TEST_CASE("the simulator and the threads transport move the same messages") {
  for (const AlgorithmEntry& algo : algorithmRegistry()) {
    for (int p : {3, 8}) {
      CollectiveSpec spec{algo.op, p, 1003, 4, 1};
      SchedulePtr schedule = buildSchedule(algo, spec);

      ServerParams server;
      server.devices = p;
      server.shape = HccsShape::Mesh;
      server.hccs = {12_GBps, 1_us};
      Cluster cluster = buildServer(server);
      EventEngine engine;
      LinkNetwork network(engine, cluster, 4096, 64_KiB);
      ScheduleExecutor executor(engine, network, cluster, *schedule);
      executor.recordMessages(true);
      std::vector<MessageRecord> simulated = executor.run().log;

      std::vector<MessageRecord> real;
      for (const auto& d : runWithThreads(*schedule, spec, RunOptions{}).deliveries) {
        StreamTag tag = decodeStreamTag(d.tag);
        real.push_back({tag.stream, d.src, d.dst, tag.seq, d.bytes});
      }
      std::sort(simulated.begin(), simulated.end());
      std::sort(real.begin(), real.end());
      std::string name = algo.name, coll = collectiveName(algo.op);
      CAPTURE(coll);
      CAPTURE(name);
      CAPTURE(p);
      CHECK(simulated.size() == real.size());
      CHECK(simulated == real);
    }
  }
}

TEST_CASE("int32 sums are exact too") {
  for (const AlgorithmEntry& algo : algorithmRegistry()) {
    RealRunReport r = runReal(algo, 6, 1001, DataType::Int32, ReduceOp::Sum);
    std::string name = algo.name, coll = collectiveName(algo.op);
    CAPTURE(coll);
    CAPTURE(name);
    CHECK_MESSAGE(r.ok(), r.firstWrong);
  }
}

// A hierarchy's parts (a level's schedule per server, per peer group) are
// built on first use, from whichever rank's thread asks first: built once,
// only those asked about, and the sums still exact with every rank's thread
// asking at once (ThreadSanitizer runs this).
TEST_CASE("hierarchy parts are built once on first use from every rank of the threads transport") {
  std::atomic<int> builds{0};
  const AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  const int servers = 4, devices = 4, p = servers * devices;
  CollectiveSpec whole{Collective::AllReduce, p, 1000, 4, 0};
  GroupView g = GroupView::whole(whole);
  auto perServer = [&] {
    return DisjointSchedule(p, servers, [](int rank) { return rank / devices; }, [&](std::size_t s) {
      ++builds;
      std::vector<int> members;
      for (int j = 0; j < devices; ++j) members.push_back(int(s) * devices + j);
      CollectiveSpec spec = whole;
      spec.ranks = devices;
      return ring.build(g.sub(members, g.all()), spec);
    });
  };
  DisjointSchedule lazy = perServer();
  CHECK(builds == 0);
  CHECK(lazy.stepCount(9) == 2 * (devices - 1)); // server 2's ring
  CHECK(lazy.stepCount(10) == 2 * (devices - 1));
  CHECK(builds == 1);
  builds = 0;
  DisjointSchedule shared = perServer();
  RealRunReport r = runWithThreads(shared, whole, RunOptions{DataType::Float32, ReduceOp::Sum, std::chrono::milliseconds(20'000)});
  CHECK(builds == servers); // once each, whichever of its four threads came first
  CHECK(r.errors.empty());  // (each server sums its own: not an all-reduce of all 16, checked below)
  for (const char* name : {"hier:ring+rhd", "hierpipe:ring+ring", "hier:mesh+tree"}) {
    CAPTURE(name);
    auto algo = findAlgorithm(Collective::AllReduce, name);
    REQUIRE(algo);
    CollectiveSpec spec{Collective::AllReduce, p, 100003, 4, 0, devices};
    SchedulePtr schedule = buildSchedule(*algo, spec);
    CHECK(runWithThreads(*schedule, spec, RunOptions{DataType::Float32, ReduceOp::Sum, std::chrono::milliseconds(20'000)}).ok());
  }
}
