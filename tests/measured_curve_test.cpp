// Reading benchmark logs (sim/validation/measured_curve.h) and comparing
// them with predictions (compare.h): every layout the parser accepts, the
// rank count it infers, and a comparison whose answer is known because the
// "measurement" is collsim's own prediction.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

#include "sim/config/config_node.h"
#include "sim/run/simulate.h"
#include "sim/validation/compare.h"
#include "sim/validation/size_regions.h"

using namespace collsim;
using namespace collsim::testing;

TEST_CASE("nccl-tests logs, new and old layouts: sizes, out-of-place times, op, type and ranks") {
  // New layout (root column), one rank line per GPU as nccl-tests prints them.
  MeasuredCurve fresh = parseMeasuredCurve("# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor)\n"
                                           "#  Rank  0 Group  0 Pid 1 on host device  0 [0x07] NVIDIA H100\n"
                                           "#  Rank  1 Group  0 Pid 2 on host device  1 [0x08] NVIDIA H100\n"
                                           "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
                                           "        1024           512      half     sum      -1    20.50    0.05    0.05      0    19.00    0.05    0.05      0\n"
                                           "         512           256      half     sum      -1    18.25    0.03    0.03      0    17.00    0.03    0.03      0\n",
                                           "log.txt");
  CHECK(fresh.tool == "nccl-tests");
  CHECK_FALSE(fresh.opKnown);
  CHECK(fresh.dtype == DataType::Float16);
  CHECK(fresh.ranks == 2);
  REQUIRE(fresh.points.size() == 2);
  CHECK(fresh.points[0].bytes == 512); // sorted by size
  CHECK(fresh.points[0].timeUs == 18.25);
  CHECK(fresh.points[1].timeUs == 20.50); // out of place, not in place

  // Old layout (no root column, an error column): ranks from busbw / algbw.
  MeasuredCurve old = readMeasuredCurve(source("tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt"));
  CHECK(old.opKnown);
  CHECK(old.op == Collective::AllReduce);
  CHECK(old.ranks == 0);
  CHECK(ranksOf(old, Collective::AllReduce) == 16);
  CHECK(old.points.size() == 28);
  CHECK(old.points.back().bytes == 1073741824);
  CHECK(old.points.back().timeUs == 61556);

  for (const char* f : {"a100-1x8-nvswitch-nccl2.19.txt", "v100-1x8-cubemesh-nccl.txt", "h100-2x8-ib400-nccl2.26.txt"}) {
    CAPTURE(f);
    MeasuredCurve c = readMeasuredCurve(source(std::string("tests/data/measured/") + f));
    CHECK(ranksOf(c, c.op) == (std::string(f).find("2x8") != std::string::npos ? 16 : 8));
  }
}

TEST_CASE("hccl_test logs: size and average time - the rank count is not printed") {
  MeasuredCurve c = parseMeasuredCurve("the minbytes is 8192, maxbytes is 16384, iters is 20, warmup_iters is 5\n"
                                       "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
                                       "8192      182.84     0.04480    success\n"
                                       "16384     190.10     0.08619    success\n",
                                       "all_reduce_test.log");
  CHECK(c.tool == "hccl_test");
  CHECK_FALSE(c.opKnown); // nothing in it names the operation: compare takes --op
  CHECK(ranksOf(c, c.op) == 0);
  REQUIRE(c.points.size() == 2);
  CHECK(c.points[1].bytes == 16384);
  CHECK(c.points[1].timeUs == 190.10);
}

TEST_CASE("a log that is not a benchmark's is refused with its line") {
  CHECK_THROWS_WITH(parseMeasuredCurve("hello\n", "x.txt"), doctest::Contains("x.txt: no measurements"));
  CHECK_THROWS_WITH(parseMeasuredCurve("# all_reduce_perf\n1024 256 float sum 12.0\n", "x.txt"),
                    doctest::Contains("x.txt:2: expected a nccl-tests row"));
  CHECK_THROWS_WITH(parseMeasuredCurve("1024 256 quad sum -1 1 1 1 0 1 1 1 0\n", "x.txt"),
                    doctest::Contains("x.txt:1: unknown data type 'quad'"));
}

TEST_CASE("a log's sizes are bounded, its empty times left out and its repeated sizes merged") {
  auto row = [](const std::string& size, const std::string& time) {
    return " " + size + " 1 float sum -1 " + time + " 1 1 0 1 1 1 0\n";
  };
  // A size past 16 TiB, or with more digits than 64 bits hold, is refused
  // with its line (it overflowed the clock, or stoull, before).
  CHECK_THROWS_WITH_AS(parseMeasuredCurve(row("1024", "5") + row("123456789012345678901", "5"), "x.txt"),
                       doctest::Contains("x.txt:2: size 123456789012345678901 is more than collsim simulates"), ConfigError);
  CHECK_THROWS_WITH_AS(parseMeasuredCurve(row(std::to_string(Bytes(1) << 61), "5"), "x.txt"),
                       doctest::Contains("x.txt:1: size"), ConfigError);
  CHECK(parseMeasuredCurve(row("000017592186044416", "5"), "x.txt").points.at(0).bytes == kMaxMeasuredBytes);
  // Times of 0 or less are counted and left out; a size read again keeps the mean.
  MeasuredCurve c = parseMeasuredCurve(row("1024", "0") + row("2048", "-3") + row("4096", "10") + row("4096", "20"), "x.txt");
  CHECK(c.nonPositiveTimes == 2);
  CHECK(c.repeatedSizes == 1);
  REQUIRE(c.points.size() == 1);
  CHECK(c.points[0].timeUs == 15);
  CHECK_THROWS_WITH_AS(parseMeasuredCurve(row("1024", "0"), "x.txt"), doctest::Contains("with a time above 0"), ConfigError);
  // More sizes than a comparison simulates.
  std::string many;
  for (int i = 1; i <= int(kMaxMeasuredSizes) + 1; ++i) many += row(std::to_string(i), "5");
  CHECK_THROWS_WITH_AS(parseMeasuredCurve(many, "x.txt"), doctest::Contains("1025 sizes; collsim compares at most 1024"),
                       ConfigError);
}

TEST_CASE("compare refuses a log whose simulations would pass the work limit, before any runs") {
  MeasuredCurve c;
  c.source = "big.txt";
  c.ranks = 8;
  c.points = {{Bytes(1) << 40, 1e6}};
  CompareOptions o;
  o.algorithm = "ring";
  o.minBytes = 0;
  o.limits.maxEvents = 1e3;
  CHECK_THROWS_WITH_AS(compareWithMeasured(c, Collective::AllReduce, loadClusterFile(source("configs/clusters/hccs-ring-8.yaml"), {}), o),
                       doctest::Contains("big.txt: about"), InputError);
}

TEST_CASE("compare: collsim's own prediction as the measurement has no error - another rank count is refused") {
  ClusterSetup setup = loadClusterFile(source("configs/clusters/hccs-ring-8.yaml"), {});
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  std::string log = "# all_reduce_perf\n";
  for (Bytes n : {Bytes(1) << 16, Bytes(1) << 20, Bytes(1) << 24}) {
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, n, Bytes(1) << 20, false};
    double us = simulateCollective(setup.cluster, req).timeUs();
    double algbw = double(n) / us / 1e3, busbw = algbw * 2 * 7 / 8;
    log += std::to_string(n) + " " + std::to_string(n / 4) + " float sum -1 " + fixedText(us) + " " +
           fixedText(algbw) + " " + fixedText(busbw) + " 0 " + fixedText(us) + " 1 1 0\n";
  }
  Comparison c = compareWithMeasured(parseMeasuredCurve(log, "self.txt"), Collective::AllReduce, setup, {});
  REQUIRE(c.points.size() == 3);
  CHECK(c.medianAbsError < 1e-6);
  CHECK(c.maxAbsError < 1e-6);
  // The two-point line meets the ends and misses the middle.
  CHECK(c.points.front().lineError() == doctest::Approx(0).epsilon(1e-9));
  CHECK(c.points.back().lineError() == doctest::Approx(0).epsilon(1e-9));

  ClusterSetup four = loadClusterFile(source("configs/clusters/hccs-ring-8.yaml"), {"devices=4"});
  CHECK_THROWS_WITH(compareWithMeasured(parseMeasuredCurve(log, "self.txt"), Collective::AllReduce, four, {}),
                    doctest::Contains("self.txt: measured on 8 ranks; the cluster hccs-ring-8 has 4"));
}

// nccl-tests issues its collectives back to back: the host launches the next
// while the devices run this one. On dgx-a100-8 under nccl with a 10 us
// launch, the 64 KiB AllReduce takes the devices some 10-20 us (LL on 2
// channels, no launch in it). One thread driving 8 GPUs (-g 8) spends
// 8 x 10 = 80 us launching each collective: the prediction is exactly that,
// marked host-bound. One GPU a thread (nGpus 1, MPI runs) hides its 10 us
// behind the devices: the prediction is theirs alone.
TEST_CASE("compare: a benchmark's launches hide behind the devices unless one thread drives too many") {
  ClusterSetup setup = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {"library.launch=10us"});
  const std::string row = "65536 16384 float sum -1 50.0 1.31 2.29 0 50.0 1.31 2.29 0\n";
  MeasuredCurve eight = parseMeasuredCurve("# command: all_reduce_perf -b 64K -e 64K -g 8\n" + row, "g8.txt");
  MeasuredCurve one = parseMeasuredCurve("# nThread 1 nGpus 1 minBytes 65536 maxBytes 65536\n" + row, "g1.txt");
  CHECK(eight.devicesPerThread == 8);
  CHECK(one.devicesPerThread == 1);
  CHECK(parseMeasuredCurve(row, "bare.txt").devicesPerThread == 1);

  Comparison hostBound = compareWithMeasured(eight, Collective::AllReduce, setup, {});
  REQUIRE(hostBound.points.size() == 1);
  CHECK(hostBound.hostUs == doctest::Approx(80.0));
  CHECK(hostBound.points[0].hostBound);
  CHECK(hostBound.points[0].predictedUs == doctest::Approx(80.0));

  Comparison deviceBound = compareWithMeasured(one, Collective::AllReduce, setup, {});
  CHECK_FALSE(deviceBound.points[0].hostBound);
  double devices = deviceBound.points[0].predictedUs;
  CHECK(devices > 10.0);
  CHECK(devices < 80.0);
  // The devices' time is the simulation with no launch in it.
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  RunRequest req{Collective::AllReduce, &ring, DataType::Float32, 65536, Bytes(1) << 20, false};
  req.library = setup.library;
  req.library.launch = 0;
  CHECK(simulateCollective(setup.cluster, req).timeUs() == doctest::Approx(devices));
}

// The settings a run was made with: a sweep's "# env:" header and NCCL's
// own INFO lines (NCCL_DEBUG=INFO prints "NCCL_ALGO set by environment to
// Ring", src/graph/tuning.cc), each with its line.
TEST_CASE("a log records its run's NCCL settings, and compare runs the collective as they say") {
  const std::string row = "1048576 262144 float sum -1 100.0 10.49 19.66 0 100.0 10.49 19.66 0\n";
  MeasuredCurve c = parseMeasuredCurve("# env: NCCL_ALGO=RING NCCL_PROTO=Simple\n"
                                       "node1:20:20 [0] NCCL INFO NCCL_MAX_NCHANNELS set by environment to 4\n" + row,
                                       "x.txt");
  REQUIRE(c.env.size() == 3);
  CHECK(c.env[0].name == "NCCL_ALGO");
  CHECK(c.env[0].value == "RING");
  CHECK(c.env[1].value == "Simple");
  CHECK(c.env[1].origin == "x.txt:1");
  CHECK(c.env[2].name == "NCCL_MAX_NCHANNELS");
  CHECK(c.env[2].origin == "x.txt:2");
  CHECK_THROWS_WITH(parseMeasuredCurve("# env: RING\n" + row, "x.txt"), doctest::Contains("x.txt:1: # env: 'RING' is not NAME=VALUE"));
  CHECK_THROWS_WITH(parseMeasuredCurve("# env:\n" + row, "x.txt"), doctest::Contains("x.txt:1: '# env:' names no"));
  // The shared p4d sweep fixed the ring; compare's default (the library's
  // choice) follows it and says so, an --algo given wins.
  const std::string p4d = source("tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt");
  const std::string cluster = source("configs/clusters/p4d-2x8-efa.yaml");
  CliResult byRun = cli({"compare", p4d, "--cluster", cluster, "--format", "json", "--min-bytes", "64MiB"});
  REQUIRE(byRun.status == 0);
  CHECK(contains(byRun.err, "a100-2x8-efa4x100-nccl2.8.txt:5: NCCL_ALGO=RING: runs ring"));
  CHECK(nlohmann::json::parse(byRun.out)["algorithm"] == "ring");
  CliResult byUser = cli({"compare", p4d, "--cluster", cluster, "--format", "json", "--min-bytes", "64MiB", "--algo", "tree"});
  REQUIRE(byUser.status == 0);
  CHECK(!contains(byUser.err, "NCCL_ALGO"));
  CHECK(nlohmann::json::parse(byUser.out)["algorithm"] == "tree");
}

// Errors by size region (size_regions.h): the regions' bounds are fixed at
// 1 MiB and 64 MiB, a region's median is its own sizes' only, and one past
// 20 % either way is systematic. Here: 64 KiB -30 %, 512 KiB -8 % (small:
// median -19 %, |e| 19 %); 1 MiB +25 %, 4 MiB +21 %, 32 MiB
// -5 % (mid: median +21 %, systematic; |e| 21 %); 64 MiB -2 % (large).
TEST_CASE("compare's error by size region: fixed bounds, each region's own median, systematic past 20 %") {
  auto point = [](Bytes bytes, double error) {
    return ComparedPoint{bytes, 100.0, 100.0 * (1 + error), 100.0, std::nullopt, 1, "", false};
  };
  constexpr Bytes KiB = 1024, MiB = KiB * KiB;
  std::vector<ComparedPoint> points = {point(64 * KiB, -0.30), point(512 * KiB, -0.08), point(MiB, 0.25),
                                       point(4 * MiB, 0.21),   point(32 * MiB, -0.05),  point(64 * MiB, -0.02)};
  std::vector<SizeRegionError> r = errorBySizeRegion(points);
  REQUIRE(r.size() == 3);
  CHECK(r[0].name == "small");
  CHECK(r[0].sizes == 2);
  CHECK(r[0].medianError == doctest::Approx(-0.19));
  CHECK(r[0].medianAbsError == doctest::Approx(0.19));
  CHECK_FALSE(r[0].systematic());
  CHECK(r[1].sizes == 3);
  CHECK(r[1].medianError == doctest::Approx(0.21));
  CHECK(r[1].medianAbsError == doctest::Approx(0.21));
  CHECK(r[1].systematic());
  CHECK(r[2].sizes == 1);
  CHECK(r[2].medianError == doctest::Approx(-0.02));
  CHECK_FALSE(r[2].systematic());
  // An empty region has no sizes and is never systematic.
  std::vector<SizeRegionError> largeOnly = errorBySizeRegion({point(128 * MiB, -0.5)});
  CHECK(largeOnly[0].sizes == 0);
  CHECK_FALSE(largeOnly[0].systematic());
  CHECK(largeOnly[2].systematic());
}

// The NCCL release a log names, whichever way it names it: NCCL's own INFO
// line, nccl-tests' header (nccl-library=MMmmpp), or a sweep's hardware
// line; the first one wins, and a line naming none leaves it unset.
TEST_CASE("a log names its NCCL release, and compare rates with that release's tuning model") {
  const std::string row = "1048576 262144 float sum -1 100.0 10.0 17.5 0 100.0 10.0 17.5 0\n";
  struct Case {
    std::string header;
    int minor;
  };
  const Case cases[] = {
      {"host:1:1 [0] NCCL INFO NCCL version 2.19.3+cuda12.2\n", 19},
      {"# nccl-tests version 2.13.8 nccl-headers=21903 nccl-library=22106\n", 21},
      {"# hardware: 8 A100, NCCL 2.8.3.\n", 8},
      {"# hardware: 8 A100 (no library named)\n# NCCL version unknown\n", 0},
  };
  for (const Case& c : cases) {
    CAPTURE(c.header);
    MeasuredCurve curve = parseMeasuredCurve("# all_reduce_perf\n" + c.header + row, "log.txt");
    CHECK(curve.ncclMinor == c.minor);
    if (c.minor > 0) CHECK(curve.ncclVersionOrigin == "log.txt:2");
  }
  CliResult r = cli({"compare", source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt"), "--cluster",
                     source("configs/clusters/dgx-a100-8.yaml")});
  CHECK(r.status == 0);
  CHECK(contains(r.err, "a100-1x8-nvswitch-nccl2.19.txt:1: NCCL 2.19: library.version=2.19"));
  CHECK(contains(r.err, "NCCL 2.19-2.21's tuning model"));
  r = cli({"compare", source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt"), "--cluster",
           source("configs/clusters/dgx-a100-8.yaml"), "--set", "library.version=2.26"});
  CHECK(contains(r.err, "NCCL 2.23-2.27's tuning model"));
}

// HCCL_ALGO as an hccl_test run recorded it ("# env:") runs that algorithm
// at every size in place of the selector's pick; the user's --env-file wins
// over the run's, and other HCCL variables are named as not applied.
TEST_CASE("a log's recorded HCCL_ALGO and the user's decide what compare runs on an HCCL cluster") {
  TempDir dir;
  const std::string rows = "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
                           "1048576   500.0   2.0   success\n"
                           "4194304   900.0   4.6   success\n";
  const std::string cluster = source("configs/clusters/atlas-800t-a2-8.yaml");
  std::string recorded = dir.write("ring.log", "# all_reduce_test\n# env: HCCL_ALGO=level0:NA;level1:ring HCCL_BUFFSIZE=200\n" + rows);
  CliResult r = cli({"compare", recorded, "--cluster", cluster, "--op", "allreduce", "--algo", "library"});
  REQUIRE(r.status == 0);
  CHECK(contains(r.err, "ring.log:2: HCCL_ALGO=level0:NA;level1:ring: forces allreduce ring"));
  CHECK(contains(r.err, "ring.log:2: HCCL_BUFFSIZE: not applied by compare and calibrate"));
  CHECK(contains(r.out, "predicted: ring under hccl"));
  std::string env = dir.write("env.sh", "export HCCL_ALGO=\"level0:NA;level1:H-D_R\"\n");
  r = cli({"compare", recorded, "--cluster", cluster, "--op", "allreduce", "--env-file", env});
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "predicted: rhd under hccl"));
  // An --algo given is the user's: the run's HCCL_ALGO gives way to it.
  r = cli({"compare", recorded, "--cluster", cluster, "--op", "allreduce", "--algo", "mesh"});
  CHECK(contains(r.out, "predicted: mesh under hccl"));
  // A recorded HCCL_ALGO collsim cannot read is refused at its line.
  std::string bad = dir.write("bad.log", "# all_reduce_test\n# env: HCCL_ALGO=level0:NA;level1:quantum\n" + rows);
  r = cli({"compare", bad, "--cluster", cluster, "--op", "allreduce"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "bad.log:2"));
}
