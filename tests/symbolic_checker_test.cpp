#include <doctest/doctest.h>

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/compose.h"
#include "algorithms/core/registry.h"
#include "sim/run/simulate.h"
#include "test_support.h"
#include "topologies/server_shapes.h"

using namespace collsim;

namespace {

bool mentions(const CheckReport& r, const std::string& word) {
  return r.summary().find(word) != std::string::npos;
}

} // namespace

TEST_CASE("every registered algorithm is correct for p = 1..64 and awkward sizes") {
  for (const AlgorithmEntry& algo : algorithmRegistry()) {
    for (int p : testing::sweepCounts(64)) {
      for (std::uint64_t count : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(p + 1), std::uint64_t(3 * p + 2)}) {
        CollectiveSpec spec{algo.op, p, count, 1, p / 2};
        CheckReport r = checkSchedule(*buildSchedule(algo, spec), spec);
        if (!r.ok()) { // one message per failing shape, not thousands of checks
          std::string op = collectiveName(algo.op), name = algo.name;
        CAPTURE(op);
          CAPTURE(name);
          CAPTURE(p);
          CAPTURE(count);
          FAIL_CHECK(r.summary());
        }
      }
    }
  }
}

TEST_CASE("a missing step is caught") {
  CollectiveSpec spec{Collective::AllReduce, 4, 13, 1, 0};
  auto steps = materialize(*buildSchedule(*findAlgorithm(Collective::AllReduce, "ring"), spec));
  steps[2].erase(steps[2].begin() + 3); // rank 2 skips one step
  CheckReport r = checkSchedule(ExplicitSchedule(steps), spec);
  CHECK_FALSE(r.ok());
  // Rank 3 waits for the send rank 2 skipped.
  CHECK(mentions(r, "deadlock"));
}

TEST_CASE("a chunk reduced twice is caught") {
  CollectiveSpec spec{Collective::AllReduce, 4, 13, 1, 0};
  auto steps = materialize(*buildSchedule(*findAlgorithm(Collective::AllReduce, "ring"), spec));
  // In the all-gather half, reduce instead of overwrite: the already-complete
  // block gets its contributions a second time.
  for (auto& op : steps[1][4])
    if (op.kind == OpKind::Recv) op.kind = OpKind::RecvReduce;
  CheckReport r = checkSchedule(ExplicitSchedule(steps), spec);
  CHECK_FALSE(r.ok());
  CHECK(mentions(r, "reduced twice"));
}

TEST_CASE("a lost contribution is caught") {
  CollectiveSpec spec{Collective::AllReduce, 3, 9, 1, 0};
  auto steps = materialize(*buildSchedule(*findAlgorithm(Collective::AllReduce, "ring"), spec));
  // Overwrite instead of reduce in the reduce-scatter half.
  for (auto& op : steps[0][1])
    if (op.kind == OpKind::RecvReduce) op.kind = OpKind::Recv;
  CheckReport r = checkSchedule(ExplicitSchedule(steps), spec);
  CHECK_FALSE(r.ok());
  CHECK(mentions(r, "lacks the contribution"));
}

TEST_CASE("reducing different elements together is caught") {
  CollectiveSpec spec{Collective::AllReduce, 2, 4, 1, 0};
  // Rank 1 adds rank 0's elements 0..1 onto its elements 2..3.
  MaterializedSchedule s = {{{{OpKind::Send, 1, 0, 2}}}, {{{OpKind::RecvReduce, 0, 2, 2}}}};
  CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "is reduced with input element"));
}

TEST_CASE("mismatched sizes, unreceived sends, bad peers and races are caught") {
  CollectiveSpec spec{Collective::AllGather, 2, 4, 1, 0};
  SUBCASE("size mismatch") {
    MaterializedSchedule s = {{{{OpKind::Send, 1, 0, 2}}}, {{{OpKind::Recv, 0, 0, 1}}}};
    CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "matching send has 2"));
  }
  SUBCASE("send never received") {
    MaterializedSchedule s = {{{{OpKind::Send, 1, 0, 2}}}, {}};
    CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "never received"));
  }
  SUBCASE("peer is itself") {
    MaterializedSchedule s = {{{{OpKind::Send, 0, 0, 2}}}, {}};
    CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "not another rank"));
  }
  SUBCASE("out of bounds") {
    MaterializedSchedule s = {{{{OpKind::Send, 1, 3, 2}}}, {{{OpKind::Recv, 0, 0, 2}}}};
    CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "outside"));
  }
  SUBCASE("two writes of the same bytes in one step") {
    MaterializedSchedule s = {{{{OpKind::Recv, 1, 0, 2}, {OpKind::Recv, 1, 1, 2}}},
                              {{{OpKind::Send, 0, 2, 2}, {OpKind::Send, 0, 2, 2}}}};
    CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "write the same bytes"));
  }
  SUBCASE("a block received at the wrong offset") {
    // Rank 1 stores rank 0's block (elements 0-1) one element too far, at
    // 1-2: every message matches, so only the element check can see it.
    MaterializedSchedule s = {{{{OpKind::Send, 1, 0, 2}, {OpKind::Recv, 1, 2, 2}}},
                              {{{OpKind::Send, 0, 2, 2}, {OpKind::Recv, 0, 1, 2}}}};
    CheckReport r = checkSchedule(ExplicitSchedule(s), spec);
    REQUIRE(r.problems.size() == 3);
    CHECK(r.problems[0] == "rank 1 element 0 holds no data instead of input element 0 (allgather)");
    CHECK(r.problems[1] == "rank 1 element 1 holds input element 0 instead of input element 1 (allgather)");
    CHECK(r.problems[2] == "rank 1 element 2 holds input element 1 instead of input element 2 (allgather)");
  }
  SUBCASE("both ranks receive first: deadlock") {
    MaterializedSchedule s = {{{{OpKind::Recv, 1, 2, 2}}, {{OpKind::Send, 1, 0, 2}}},
                              {{{OpKind::Recv, 0, 0, 2}}, {{OpKind::Send, 0, 2, 2}}}};
    CHECK(mentions(checkSchedule(ExplicitSchedule(s), spec), "deadlock"));
  }
}

TEST_CASE("the simulator refuses a schedule the checker rejects") {
  // An AllReduce "algorithm" that only runs the reduce-scatter half.
  AlgorithmEntry broken = *findAlgorithm(Collective::ReduceScatter, "ring");
  broken.op = Collective::AllReduce;
  broken.name = "half";
  ServerParams server;
  server.devices = 4;
  server.hccs = {12'000'000'000ULL, 1'000'000};
  Cluster cluster = buildServer(server);
  RunRequest req{Collective::AllReduce, &broken, DataType::Float32, 4096, 4096, true};
  CHECK_THROWS_WITH(simulateCollective(cluster, req), doctest::Contains("the symbolic checker rejects"));
}

TEST_CASE("waits across streams are checked") {
  CollectiveSpec spec{Collective::AllGather, 2, 4, 1, 0};
  auto one = [](MaterializedSchedule m) { return std::make_unique<ExplicitSchedule>(std::move(m)); };
  SUBCASE("a wait for a step that never comes deadlocks") {
    std::vector<SchedulePtr> streams;
    streams.push_back(one({{{{OpKind::Wait, 1, 1, 0}}, {{OpKind::Send, 1, 0, 2}}}, {{{OpKind::Recv, 0, 0, 2}}}}));
    streams.push_back(one({{{{OpKind::Wait, 0, 2, 0}}}, {}}));
    CHECK(mentions(checkSchedule(StreamsSchedule(std::move(streams)), spec), "deadlock"));
  }
  SUBCASE("a wait for its own stream is refused") {
    std::vector<SchedulePtr> streams;
    streams.push_back(one({{{{OpKind::Wait, 0, 1, 0}}}, {}}));
    streams.push_back(one({{}, {}}));
    CHECK(mentions(checkSchedule(StreamsSchedule(std::move(streams)), spec), "not another stream"));
  }
}

TEST_CASE("two streams writing the same bytes need a wait between them") {
  // Rank 1 receives rank 0's block (elements 0-1) on stream 0 and copies its
  // own block over element 1 on stream 1: without a wait either may land last.
  CollectiveSpec spec{Collective::AllGather, 2, 4, 1, 0};
  auto one = [](MaterializedSchedule m) { return std::make_unique<ExplicitSchedule>(std::move(m)); };
  auto streams = [&](bool wait) {
    std::vector<SchedulePtr> s;
    s.push_back(one({{{{OpKind::Send, 1, 0, 2}, {OpKind::Recv, 1, 2, 2}}},
                     {{{OpKind::Recv, 0, 0, 2}, {OpKind::Send, 0, 2, 2}}}}));
    std::vector<std::vector<Op>> second;
    if (wait) second.push_back({{OpKind::Wait, 0, 1, 0}}); // after stream 0's step 0
    second.push_back({{OpKind::Copy, -1, 1, 1, 2}});
    s.push_back(one({{}, second}));
    return StreamsSchedule(std::move(s));
  };
  CheckReport race = checkSchedule(streams(false), spec);
  CHECK(mentions(race, "rank 1 step 0 (stream 1): writes element 1, which step 0 of stream 0 also writes, with no wait "
                       "between them (a race)"));
  // With the wait the copy comes second: no race; the element check then
  // finds element 1 overwritten, which is what such a schedule computes.
  CheckReport ordered = checkSchedule(streams(true), spec);
  CAPTURE(ordered.summary());
  CHECK_FALSE(mentions(ordered, "race"));
  CHECK(mentions(ordered, "rank 1 element 1 holds input element 2 instead of input element 1"));
}
