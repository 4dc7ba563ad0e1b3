// Channels (algorithms/core/channels.h): every AllReduce algorithm split
// into C channels is still an AllReduce (the symbolic checker, and real sums
// through the threads transport), each channel leaves a server through
// another device, and on a cluster with a NIC per device the channels of a
// flat ring use the NICs a single ring leaves idle.
#include <doctest/doctest.h>

#include <chrono>
#include <set>

#include "test_support.h"

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/channels.h"
#include "algorithms/transports/threads/run_threads.h"
#include "sim/run/simulate.h"

using namespace collsim;
using namespace collsim::testing;

TEST_CASE("channelled AllReduce algorithms are AllReduces, for every rank count and server layout") {
  // Multi-stream ones too (dbtree, nvls's pipeline, hierpipe): each channel
  // brings all its streams, their Waits renumbered.
  std::vector<AlgorithmEntry> all = algorithmRegistry();
  all.push_back(*findAlgorithm(Collective::AllReduce, "nvls"));
  all.push_back(*findAlgorithm(Collective::AllReduce, "hierpipe:ring+ring"));
  for (const AlgorithmEntry& flat : all) {
    if (flat.op != Collective::AllReduce) continue;
    for (int channels : {2, 3, 8})
      for (int p : {1, 2, 3, 4, 6, 8, 9, 16})
        for (int d : {0, 2, 4}) {
          CollectiveSpec spec{Collective::AllReduce, p, std::uint64_t(5 * p + 7), 4, 0, d};
          AlgorithmEntry e = withChannels(flat, channels);
          if (!e.unsupported(spec).empty()) continue;
          CAPTURE(e.name);
          CAPTURE(p);
          CAPTURE(d);
          SchedulePtr s = buildSchedule(e, spec);
          CHECK(s->streamCount() == channels * buildSchedule(flat, spec)->streamCount());
          CheckReport r = checkSchedule(*s, spec);
          CHECK_MESSAGE(r.ok(), r.summary());
        }
  }
}

TEST_CASE("channelled ring sums real data through the threads transport") {
  AlgorithmEntry ring = withChannels(*findAlgorithm(Collective::AllReduce, "ring"), 4);
  CollectiveSpec spec{Collective::AllReduce, 8, 1001, 4, 0, 4};
  RunOptions options{DataType::Float32, ReduceOp::Sum, std::chrono::milliseconds(20'000)};
  RealRunReport r = runWithThreads(*buildSchedule(ring, spec), spec, options);
  CHECK_MESSAGE(r.ok(), r.firstWrong);
}

TEST_CASE("channel k starts each server k devices further on") {
  // 2 servers of 4: channel 1 visits 1 2 3 0 | 5 6 7 4.
  std::vector<int> order;
  for (int i = 0; i < 8; ++i) order.push_back(channelMember(i, 1, 8, 4));
  CHECK(order == std::vector<int>{1, 2, 3, 0, 5, 6, 7, 4});
  std::set<int> exits; // the last device of server 0 in each channel: where the ring leaves it
  for (int k = 0; k < 4; ++k) exits.insert(channelMember(3, k, 8, 4));
  CHECK(exits.size() == 4);
  // Unknown layout: rotated over all ranks.
  CHECK(channelMember(7, 2, 8, 0) == 1);
}

TEST_CASE("a flat ring as 8 channels uses every NIC of a server - one ring uses one") {
  // 2 servers x 8 devices, a 100 Gbps NIC per device: one ring crosses
  // between the servers through one NIC each way, eight channels through all.
  ClusterSetup atlas = loadClusterFile(source("configs/clusters/atlas-2x8.yaml"), {});
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  auto run = [&](int channels) {
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, Bytes(256) << 20, Bytes(1) << 20, true};
    req.channels = channels;
    return simulateCollective(atlas.cluster, req);
  };
  CollectiveRun one = run(1), eight = run(8);
  MESSAGE("2x8 ring 256 MiB: 1 channel " << one.timeUs() << " us, 8 channels " << eight.timeUs() << " us");
  CHECK(eight.algorithm == "ring x8");
  CHECK(eight.symbolicallyChecked);
  // The inter-server hop bounds the single ring (12.5 GB/s against 12 GB/s
  // HCCS, with framing); eight rings spread it over eight NICs and are then
  // bound by HCCS: faster, though not eight times.
  CHECK(eight.timeUs() < one.timeUs());
}
