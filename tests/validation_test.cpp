// Predicting measured hardware: the shared nccl-tests sweeps
// (tests/data/measured/) against their presets, before and after
// `collsim calibrate`. Targets (issue 14), on sizes >= 64 KiB: uncalibrated
// median |error| < 30 %; calibrated median < 10 % and max < 30 %.
//
// The single-node sweeps meet the calibrated targets; uncalibrated the A100
// meets the 30 % and the V100 comes within 32 %: their benchmark hides the
// launches behind the devices (compare.h), and the device model runs mid
// sizes (1-16 MiB) too fast. Of the two-node ones, H100 over 400G
// InfiniBand meets the uncalibrated target, with the ring alone or with
// NVLS and the tree where they win (then within 30 % at every size), and
// with them meets the calibrated targets too; p4d over EFA does not (EFA's
// per-message costs are not modelled).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "test_support.h"

#include "sim/selector/selector.h"
#include "sim/validation/calibrate.h"
#include "sim/validation/library_algorithms.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

struct Sweep {
  const char* log;
  const char* cluster;
  // Calibrated, the median and largest |error| stay under these.
  double median = 0.10, max = 0.30;
};

// Both calibrate within 10 % (max 30 %) inside the figures' physical
// ranges: the V100's fit keeps NCCL's per-hop latencies at twice its own
// (the range's edge), where the old fit set the launch to 0 and them to
// 1.8 times (issue 64).
const Sweep kSingleNode[] = {
    {"tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt", "configs/clusters/dgx-a100-8.yaml", 0.10, 0.30},
    {"tests/data/measured/v100-1x8-cubemesh-nccl.txt", "configs/clusters/v100-cubemesh-8.yaml", 0.10, 0.30},
};

// The A100 sweep's sizes from `from` to `to` as collsim times them on the
// A100 preset under `sets`: a curve whose figures are known, and the
// comparison that made it.
std::pair<MeasuredCurve, Comparison> curveMadeWith(const std::vector<std::string>& sets, Bytes from,
                                                   Bytes to = ~Bytes(0)) {
  MeasuredCurve curve = readMeasuredCurve(source(kSingleNode[0].log));
  std::erase_if(curve.points, [&](const MeasuredPoint& p) { return p.bytes < from || p.bytes > to; });
  Comparison made = compareWithMeasured(curve, Collective::AllReduce, loadClusterFile(source(kSingleNode[0].cluster), sets), {});
  REQUIRE(made.points.size() == curve.points.size());
  for (std::size_t i = 0; i < curve.points.size(); ++i) curve.points[i].timeUs = made.points[i].predictedUs;
  return {curve, made};
}

} // namespace

TEST_CASE("single-node sweeps: within 32 % uncalibrated, and calibrated inside the figures' physical ranges") {
  for (const Sweep& s : kSingleNode) {
    CAPTURE(s.log);
    MeasuredCurve curve = readMeasuredCurve(source(s.log));
    CalibrationResult r = calibrate(curve, Collective::AllReduce, source(s.cluster), {}, {});
    MESSAGE(std::string(s.log) << ": before median " << r.before[0].medianAbsError << " max " << r.before[0].maxAbsError << "; after median "
                  << r.after[0].medianAbsError << " max " << r.after[0].maxAbsError << "; line median "
                  << r.after[0].lineMedianAbsError);
    CHECK(r.before[0].medianAbsError < 0.32);
    CHECK(r.after[0].medianAbsError < s.median);
    CHECK(r.after[0].maxAbsError < s.max);
    CHECK(r.after[0].medianAbsError < r.after[0].lineMedianAbsError); // better than the two-point line
    // Every figure inside its range (calibrate.h), whatever the curve wants.
    for (const auto& fitted : r.fitted)
      if (auto range = calibrationRange(fitted.first)) {
        CAPTURE(fitted.first);
        CHECK(fitted.second >= range->lo - 1e-9);
        CHECK(fitted.second <= range->hi + 1e-9);
      }
    // The search's budget (calibrate.cpp), plus its last pair, then per
    // figure two to say whether the curve determines it and four past an
    // edge of its range, per stage a start and two at its end.
    CHECK(r.evaluations <= 400 + 2 + 6 * int(r.fitted.size()) + 2 * 3);
  }
}

// A figure the curve wants past its range keeps the edge, and the result
// says what the curve wants and which sizes pull it: a curve collsim made
// with NVLink at 0.6 of line rate (below NCCL's 0.8, past the range's
// 0.75) fits 0.75 and wants less, pulled by its largest sizes.
TEST_CASE("calibrate keeps a figure inside its physical range and says what the curve wants past it") {
  const std::string a100 = source(kSingleNode[0].cluster);
  const MeasuredCurve curve = curveMadeWith({"hccs.efficiency=0.6"}, Bytes(32) << 20).first;
  CalibrateOptions o;
  o.fit = {"efficiency"};
  CalibrationResult r = calibrate(curve, Collective::AllReduce, a100, {}, o);
  CHECK(r.fitted.at("efficiency") == doctest::Approx(0.75));
  REQUIRE(r.outsideRange.size() == 1);
  const OutsideRange& w = r.outsideRange[0];
  CHECK(w.name == "efficiency");
  CHECK(w.kept == doctest::Approx(0.75));
  CHECK(w.wanted < 0.75);
  CHECK(w.wanted >= 0.55); // looked at no further than two widths past the edge
  CHECK(w.lo == doctest::Approx(0.75));
  CHECK(contains(w.source, "topo.h"));
  REQUIRE(!w.pulledBy.empty());
  CHECK(contains(w.pulledBy[0], "MiB"));
  CHECK(contains(r.yaml, "efficiency: 0.75"));
}

// A fixed cost per pipeline step (#37), fitted only when asked: it lands on
// the protocol that ends each step with a fence and a flag (Simple), not on
// LL or LL128, whose lines carry their flags. On a curve collsim made with
// 3 us a step on Simple (the sweep's sizes from 32 MiB, which Simple runs)
// the fit finds it.
TEST_CASE("calibrate fits a cost per pipeline step when asked, on the protocol that fences each step") {
  const std::string a100 = source(kSingleNode[0].cluster);
  const MeasuredCurve curve = curveMadeWith({"library.protocols.Simple.step_overhead=3us"}, Bytes(32) << 20).first;
  CalibrateOptions o;
  o.fit = {"efficiency"};
  const CalibrationResult without = calibrate(curve, Collective::AllReduce, a100, {}, o);
  CHECK(without.fitted.count("step_cost") == 0);
  o.fit = {"step_cost"};
  const CalibrationResult with = calibrate(curve, Collective::AllReduce, a100, {}, o);
  REQUIRE(with.fitted.count("step_cost") == 1);
  CHECK(with.fitted.at("step_cost") == doctest::Approx(3.0).epsilon(0.1));
  CHECK(with.after[0].medianAbsError < 0.01);
  ClusterSetup fitted = loadCluster(ConfigNode(YAML::Load(with.yaml), std::make_shared<ConfigOrigins>("calibrated")));
  CHECK(toMicroseconds(fitted.library.find(Protocol::Simple)->stepOverhead) == doctest::Approx(with.fitted.at("step_cost")));
  CHECK(fitted.library.find(Protocol::LL)->stepOverhead == 0);
  CHECK(fitted.library.find(Protocol::LL128)->stepOverhead == 0);
}

TEST_CASE("calibrate fits only what it is asked to, and refuses what the cluster has not") {
  MeasuredCurve curve = readMeasuredCurve(source(kSingleNode[0].log));
  CalibrateOptions o;
  o.fit = {"efficiency"};
  CalibrationResult r = calibrate(curve, Collective::AllReduce, source(kSingleNode[0].cluster), {}, o);
  CHECK(r.fitted.size() == 1);
  CHECK(r.after[0].medianAbsError <= r.before[0].medianAbsError);
  // The calibrated file loads back: its figures are the ones fitted, under
  // the section's name as the file writes it (scale_up, not its alias hccs).
  YAML::Node calibrated = YAML::Load(r.yaml);
  CHECK(!calibrated["hccs"]);
  CHECK(calibrated["scale_up"]["efficiency"].as<double>() == doctest::Approx(r.fitted.at("efficiency")));
  o.fit = {"network_efficiency"};
  CHECK_THROWS_WITH_AS(calibrate(curve, Collective::AllReduce, source(kSingleNode[0].cluster), {}, o),
                       doctest::Contains("has one server"), InputError);
  o.fit = {"speed"};
  CHECK_THROWS_WITH_AS(calibrate(curve, Collective::AllReduce, source(kSingleNode[0].cluster), {}, o),
                       doctest::Contains("no parameter 'speed'"), InputError);
  CHECK_THROWS_WITH_AS(calibrate(curve, Collective::AllReduce, source(kSingleNode[0].cluster), {"library=ideal"}, {}),
                       doctest::Contains("add library: nccl"), InputError);
}

// p4d's small sizes sit far above what 5 us links give (EFA of 2021 took
// tens of microseconds a message): fitting the links' latency alone brings
// them closer, up to its range's 10 us, and the result says the curve wants
// more (its 512 KiB-2 MiB pull it); the file has what was fitted.
TEST_CASE("calibrate fits the network latency, asked or by default across servers") {
  MeasuredCurve curve = readMeasuredCurve(source("tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt"));
  std::erase_if(curve.points, [](const MeasuredPoint& p) { return p.bytes > (Bytes(2) << 20); }); // a quick fit
  CalibrateOptions o;
  o.fit = {"network_latency"};
  o.compare.algorithm = "ring";
  CalibrationResult r = calibrate(curve, Collective::AllReduce, source("configs/clusters/p4d-2x8-efa.yaml"), {}, o);
  REQUIRE(r.fitted.size() == 1);
  double us = r.fitted.at("network_latency");
  CHECK(us == doctest::Approx(10.0));
  REQUIRE(r.outsideRange.size() == 1);
  CHECK(r.outsideRange[0].wanted > 10.0);
  CHECK(r.after[0].medianAbsError < r.before[0].medianAbsError);
  CHECK(contains(r.yaml, "latency: 10us"));
  // With several servers the default set has it too; with one it has not.
  o.fit = {};
  std::erase_if(curve.points, [](const MeasuredPoint& p) { return p.bytes > (Bytes(64) << 10); }); // one size: quicker still
  r = calibrate(curve, Collective::AllReduce, source("configs/clusters/p4d-2x8-efa.yaml"), {}, o);
  CHECK(r.fitted.count("network_latency") == 1);
  CHECK(r.fitted.count("network_efficiency") == 1);
  o.fit = {"network_latency"};
  CHECK_THROWS_WITH_AS(calibrate(readMeasuredCurve(source(kSingleNode[0].log)), Collective::AllReduce,
                                 source(kSingleNode[0].cluster), {}, o),
                       doctest::Contains("--fit network_latency: dgx-a100-8 has one server"), InputError);
}

// --algo library (compare's and calibrate's default): what the cluster's
// library would run at each size. NCCL: its tuning model's pick among its candidates (the
// ring alone on one A100 server, whose NVSwitch does not reduce; across
// two H100 servers the ring, the tree and NVLS with the tree: NVLS across
// servers needs SHARP in the fabric, which this one has not); HCCL: the
// algorithm its rules name for the size.
TEST_CASE("compare predicts with the library's own choice: NCCL's candidates, HCCL's rules") {
  const Cluster a100 = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {}).cluster;
  CHECK(ncclAlgorithms(Collective::AllReduce, a100) == std::vector<std::string>{"ring"});
  ClusterSetup h100 = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {});
  CHECK(ncclAlgorithms(Collective::AllReduce, h100.cluster) ==
        std::vector<std::string>{"ring", "tree", "hierpipe:nvls+tree"});
  CHECK(ncclAlgorithms(Collective::AllGather, h100.cluster) == std::vector<std::string>{"ring"});
  // With SHARP in the fabric NCCL runs NVLS across servers too (CollNet).
  const Cluster sharp = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {"fabric.reduce=true"}).cluster;
  CHECK(ncclAlgorithms(Collective::AllReduce, sharp) ==
        std::vector<std::string>{"ring", "tree", "hierpipe:nvls+sharp", "hierpipe:nvls+tree"});
  const Cluster h100One = loadClusterFile(source("configs/clusters/dgx-h100-8.yaml"), {}).cluster;
  CHECK(ncclAlgorithms(Collective::AllReduce, h100One) == std::vector<std::string>{"ring", "nvls"});
  // Each size runs NCCL's tuning model's pick (sim/nccl/nccl_tuning.h) and
  // only it: the prediction is that algorithm under that protocol alone,
  // whether or not another candidate would simulate faster.
  MeasuredCurve curve = readMeasuredCurve(source("tests/data/measured/h100-2x8-ib400-nccl2.26.txt"));
  std::erase_if(curve.points, [](const MeasuredPoint& p) { return p.bytes > (Bytes(4) << 20); });
  Comparison byLibrary = compareWithMeasured(curve, Collective::AllReduce, h100, {});
  NcclPicker picker(Collective::AllReduce, h100);
  for (const ComparedPoint& p : byLibrary.points) {
    CAPTURE(p.bytes);
    NcclPicker::Pick pick = picker.pick(ncclAlgorithms(Collective::AllReduce, h100.cluster), p.bytes);
    CHECK(p.algorithm == pick.algorithm);
    CHECK(p.protocol == pick.protocol);
    CompareOptions alone;
    alone.algorithm = pick.algorithm;
    MeasuredCurve single = curve;
    single.points = {{p.bytes, p.measuredUs}};
    ClusterSetup forced = loadClusterFile(source("configs/clusters/h100-2x8-ib400.yaml"), {"library.protocol=" + protocolText(pick.protocol)});
    CHECK(compareWithMeasured(single, Collective::AllReduce, forced, alone).points.at(0).predictedUs == p.predictedUs);
  }
  // HCCL on an Atlas 800T A2: each size by the rules' pick, which the fit
  // does not choose (a curve measured on 8 NPUs: the A100 log's sizes).
  MeasuredCurve npu = readMeasuredCurve(source(kSingleNode[0].log));
  ClusterSetup atlas = loadClusterFile(source("configs/clusters/atlas-800t-a2-8.yaml"), {});
  SelectorRules rules = loadSelectorRulesFile(source("configs/selector/hccl-910b.yaml"));
  CompareOptions o;
  o.rules = &rules;
  Comparison hccl = compareWithMeasured(npu, Collective::AllReduce, atlas, o);
  for (const ComparedPoint& p : hccl.points) {
    CAPTURE(p.bytes);
    std::string picked = choose(rules, Collective::AllReduce, p.bytes, atlas.cluster).algorithm;
    if (!p.algorithm.empty()) CHECK(p.algorithm == picked);
    CompareOptions one;
    one.algorithm = picked;
    MeasuredCurve single = npu;
    single.points = {{p.bytes, p.measuredUs}};
    CHECK(compareWithMeasured(single, Collective::AllReduce, atlas, one).points.at(0).predictedUs == p.predictedUs);
  }
  CHECK_THROWS_WITH_AS(compareWithMeasured(npu, Collective::AllReduce, atlas, {}), doctest::Contains("needs selector rules"),
                       InputError);
}

// A curve collsim made with the links at 0.9 of their rate, at sizes where
// the links set the time and the host's launches hide behind the devices:
// the fit finds the efficiency, and the launch, which the curve cannot see,
// stays at the file's 4.2 us under its prior (it could take any value
// without one) and is reported poorly determined.
TEST_CASE("calibrate's priors hold what the curve cannot see, and say so") {
  const std::string a100 = source(kSingleNode[0].cluster);
  const MeasuredCurve curve = curveMadeWith({"hccs.efficiency=0.9"}, Bytes(64) << 20).first;
  CalibrateOptions o;
  o.fit = {"efficiency", "launch"};
  CalibrationResult r = calibrate(curve, Collective::AllReduce, a100, {}, o);
  CHECK(r.fitted.at("efficiency") == doctest::Approx(0.9).epsilon(0.02));
  CHECK(r.fitted.at("launch") == doctest::Approx(4.2));
  CHECK(r.poorlyDetermined == std::vector<std::string>{"launch"});
  CHECK(r.after[0].medianAbsError < 0.01);
}

// A curve collsim made with LL switching to LL128 past 128 KiB (where LL is
// still the fastest): fitting the switch points alone finds that one, and
// the prediction then has no error.
TEST_CASE("calibrate finds the switch point of a curve made with one") {
  const std::string a100 = source(kSingleNode[0].cluster);
  // 64 KiB (compare's smallest by default) to 2 MiB: a quick fit.
  const auto made = curveMadeWith({"library.protocols.LL.max_bytes=128KiB"}, Bytes(64) << 10, Bytes(2) << 20);
  const MeasuredCurve& curve = made.first;
  CHECK(made.second.points[2].protocol == Protocol::LL128); // 256 KiB
  CalibrateOptions o;
  o.fit = {"switch_points"};
  CalibrationResult r = calibrate(curve, Collective::AllReduce, a100, {}, o);
  CHECK(r.before[0].maxAbsError > 0.05);
  CHECK(r.fitted.at("LL.max_bytes") == double(Bytes(128) << 10));
  CHECK(r.fitted.count("LL128.max_bytes") == 1); // Simple, the last, runs every size
  CHECK(r.fitted.count("Simple.max_bytes") == 0);
  CHECK(r.after[0].maxAbsError < 1e-9);
  CHECK(contains(r.yaml, "max_bytes: 131072"));
  // A library with one protocol to run has no switch to fit.
  CHECK_THROWS_WITH_AS(calibrate(curve, Collective::AllReduce, a100, {"library.protocol=Simple"}, o),
                       doctest::Contains("no switch between protocols"), InputError);
}

TEST_CASE("two-node sweeps: compared with their presets, each size by the protocol the library picks") {
  struct TwoNode {
    Sweep sweep;
    const char* algorithms;
    double medianBelow, maxBelow;
  };
  const TwoNode twoNode[] = {
      // The ring alone: within 60 % on p4d, the uncalibrated target on H100.
      // The p4d run fixed the ring (NCCL_ALGO=RING: tests/data/env/nccl-p4d.sh);
      // EFA's per-message costs of 2021 are not modelled.
      {{"tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt", "configs/clusters/p4d-2x8-efa.yaml"}, "ring", 0.60, 0.80},
      {{"tests/data/measured/h100-2x8-ib400-nccl2.26.txt", "configs/clusters/h100-2x8-ib400.yaml"}, "ring", 0.30, 1.0},
      // NVLS where it wins, its slices one per chunk loop, and the tree under
      // LL below (16 channels from 64 KiB, LL's 39 GB/s bus ceiling across
      // two nodes): within 15 % (median) and 30 % at every size.
      {{"tests/data/measured/h100-2x8-ib400-nccl2.26.txt", "configs/clusters/h100-2x8-ib400.yaml"},
       "ring,tree,hierpipe:nvls+tree", 0.15, 0.30},
  };
  for (const TwoNode& t : twoNode) {
    CAPTURE(t.sweep.log);
    CAPTURE(t.algorithms);
    MeasuredCurve curve = readMeasuredCurve(source(t.sweep.log));
    CompareOptions o;
    o.algorithm = t.algorithms;
    Comparison c = compareWithMeasured(curve, Collective::AllReduce, loadClusterFile(source(t.sweep.cluster), {}), o);
    MESSAGE(std::string(t.sweep.log) << " " << std::string(t.algorithms) << ": median " << c.medianAbsError << " max " << c.maxAbsError
                        << "; line median " << c.lineMedianAbsError);
    CHECK(c.points.back().protocol == Protocol::Simple);
    // Small sizes by a low-latency protocol, except under NVLS (Simple only, as in NCCL).
    for (const auto& p : c.points)
      if (p.algorithm.find("nvls") != std::string::npos) CHECK(p.protocol == Protocol::Simple);
    if (c.points.front().algorithm.find("nvls") == std::string::npos) CHECK(c.points.front().protocol != Protocol::Simple);
    CHECK(c.medianAbsError < t.medianBelow);
    CHECK(c.maxAbsError < t.maxBelow);
  }
}

// Other runs of p4d than the shared sweep: 1 GiB AllReduce on one to four
// p4d with NCCL 2.9.9 (NVIDIA/nccl issue #527; -g 1), each as NCCL 2.9's
// tuning model picks it (the library's choice, the default). Each entry's
// error against them.
//
// Two servers took 35.2 ms, a bus rate of 57 GB/s: more than a ring can
// move through a server's four 100 Gb/s NICs (50 GB/s), so NCCL ran the
// tree there. Its model picks the tree because its topology search rates a
// tree's channels inside two nodes at twice their rate across them
// (src/graph/search.cc); rated like the ring's, the tree lost to the ring
// and the prediction came out 82 % slow.
namespace {
std::vector<double> issue527Errors(const std::string& clusterFile) {
  const double measuredUs[] = {8142.6, 35215, 64782, 70253};
  const char* ran[] = {"ring", "tree", "ring", "ring"};
  std::vector<double> errors;
  for (int servers = 1; servers <= 4; ++servers) {
    MeasuredCurve run;
    run.ranks = 8 * servers;
    run.points = {{Bytes(1) << 30, measuredUs[servers - 1]}};
    CompareOptions o;
    o.minBytes = 0;
    Comparison c = compareWithMeasured(
        run, Collective::AllReduce,
        loadClusterFile(clusterFile, {"servers=" + std::to_string(servers), "library.version=2.9"}), o);
    MESSAGE(servers << " x p4d: " << c.algorithm << " " << c.points.at(0).predictedUs << " us, error "
                    << c.points.at(0).error());
    CHECK(c.algorithm == std::string("the library's choice (") + ran[servers - 1] + ")");
    errors.push_back(c.points.at(0).error());
  }
  return errors;
}
} // namespace

// The preset's EFA efficiency (0.64) is the median of what issue #527's
// three multi-node runs took over what full-rate links give, so they check
// that one figure explains a tree on two servers and a ring on three and
// four; the shared sweep's 1 GiB (NCCL 2.8.3, ring, a year earlier) did not
// set it.
TEST_CASE("p4d at 1 GiB on one to four servers: within 10 % of NCCL issue 527") {
  for (double e : issue527Errors(source("configs/clusters/p4d-2x8-efa.yaml"))) CHECK(std::abs(e) < 0.10);
  CompareOptions ring; // the sweep's NCCL_ALGO=RING (tests/data/env/nccl-p4d.sh)
  ring.algorithm = "ring";
  Comparison sweep = compareWithMeasured(readMeasuredCurve(source("tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt")),
                                         Collective::AllReduce, loadClusterFile(source("configs/clusters/p4d-2x8-efa.yaml"), {}), ring);
  CHECK(std::abs(sweep.points.back().error()) < 0.10);
}

// Scale transfer: calibrated on the two-server sweep, the file predicts
// 1 GiB on one to four p4d (NVIDIA/nccl #527, NCCL 2.9.9, held out of the
// fit) within 5 %: +2.9, -0.0, +2.4 and -4.6 % (the preset: +0.9, -1.1,
// +1.3, -5.6 %, its EFA rate taken from those runs). The line rates are
// fitted first on the sweep's largest sizes (EFA 0.63 of its line rate),
// the rest on every size with them held. Fitted on every size at once, the
// mid sizes, which the model runs 30-45 % fast, pulled EFA to 0.34 and the
// links' latency to 50 us (issue 64), and one server came out 16 % slow
// through a fitted step cost. (Release only: "node sweeps".)
TEST_CASE("p4d node sweeps calibrated on two servers predict one to four within 5 %") {
  MeasuredCurve curve = readMeasuredCurve(source("tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt"));
  CalibrateOptions o;
  o.compare.algorithm = "ring"; // the sweep's NCCL_ALGO=RING
  CalibrationResult r = calibrate(curve, Collective::AllReduce, source("configs/clusters/p4d-2x8-efa.yaml"), {}, o);
  CHECK(r.fitted.at("network_efficiency") == doctest::Approx(0.63).epsilon(0.05));
  TempDir dir;
  std::vector<double> after = issue527Errors(dir.write("p4d-calibrated.yaml", r.yaml));
  std::vector<double> before = issue527Errors(source("configs/clusters/p4d-2x8-efa.yaml"));
  for (double e : after) CHECK(std::abs(e) < 0.05);
  for (double e : before) CHECK(std::abs(e) < 0.10);
}

// Each size as NCCL's tuning model picks it among the ring, the tree and
// NVLS's tree (the library's choice, the default). Release only
// (scripts/test.sh leaves "node sweeps" out of the sanitizer builds): the
// search simulates the tree's pipelined pieces, some 20 s.
TEST_CASE("H100 pair node sweeps with NVLS and the tree: within 10 % (max 30 %) calibrated") {
  MeasuredCurve curve = readMeasuredCurve(source("tests/data/measured/h100-2x8-ib400-nccl2.26.txt"));
  CalibrateOptions o;
  CalibrationResult r = calibrate(curve, Collective::AllReduce, source("configs/clusters/h100-2x8-ib400.yaml"), {}, o);
  MESSAGE("h100 pair: before median " << r.before[0].medianAbsError << " max " << r.before[0].maxAbsError << "; after median "
                                      << r.after[0].medianAbsError << " max " << r.after[0].maxAbsError);
  CHECK(r.after[0].medianAbsError < 0.10);
  CHECK(r.after[0].maxAbsError < 0.30);
  CHECK(r.after[0].medianAbsError < r.after[0].lineMedianAbsError);
}

// docs/hardware.md's "remaining error by size region" table, uncalibrated
// column: each shared sweep compared as `collsim compare` runs it (the
// library's choice, the log's recorded settings), region by region. Every
// region the table lists holds the median `compare` prints, to a tenth of a
// point, and every region past 20 % is in bold there: none unnamed.
TEST_CASE("docs/hardware.md's error by size region is what compare prints, systematic regions named") {
  struct Row {
    const char* log;
    const char* cluster;
    const char* label; // the table's sweep column
  };
  const Row rows[] = {
      {"a100-1x8-nvswitch-nccl2.19", "dgx-a100-8", "8 x A100 NVSwitch"},
      {"v100-1x8-cubemesh-nccl", "v100-cubemesh-8", "8 x V100 cube-mesh"},
      {"a100-2x8-efa4x100-nccl2.8", "p4d-2x8-efa", "2 x 8 A100, EFA (ring, recorded)"},
      {"h100-2x8-ib400-nccl2.26", "h100-2x8-ib400", "2 x 8 H100, 400G IB"},
  };
  const std::string doc = slurp(source("docs/hardware.md"));
  for (const Row& row : rows) {
    CAPTURE(std::string(row.log));
    CliResult r = cli({"compare", source(std::string("tests/data/measured/") + row.log + ".txt"), "--cluster",
                       source(std::string("configs/clusters/") + row.cluster + ".yaml"), "--format", "json"});
    REQUIRE(r.status == 0);
    nlohmann::json j = nlohmann::json::parse(r.out);
    for (const auto& region : j["size_regions"]) {
      const std::string name = region["name"];
      CAPTURE(name);
      REQUIRE(region["sizes"].get<int>() > 0);
      const std::string prefix = "| " + std::string(row.label) + " | " + name + " | ";
      auto at = doc.find(prefix);
      REQUIRE(at != std::string::npos);
      std::string cells = doc.substr(at + prefix.size(), doc.find('\n', at) - at - prefix.size());
      // "4 | **-32.7 %** (32.7 %) | ...": the sizes, then the signed median.
      CHECK(std::stoi(cells) == region["sizes"].get<int>());
      std::string median = cells.substr(cells.find('|') + 1);
      bool bold = median.find_first_not_of(' ') == median.find("**");
      double shown = std::stod(median.substr(median.find_first_of("+-")));
      CHECK(std::abs(shown - 100 * region["median_error"].get<double>()) <= 0.051);
      CHECK(bold == region["systematic"].get<bool>());
    }
  }
}
