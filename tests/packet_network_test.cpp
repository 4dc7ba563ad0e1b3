// The packet-level RoCE model against hand-derived figures and the
// behaviours DCQCN, PFC and go-back-N are known for: line rate minus
// framing, fair shares in an incast, drops without PFC, pause spreading
// to a victim flow, and determinism per seed.
#include <doctest/doctest.h>

#include "relative_error.h"
#include "test_support.h"

#include <cmath>
#include <numeric>

#include <nlohmann/json.hpp>

#include "sim/network/dcqcn.h"
#include "sim/network/jitter.h"
#include "sim/network/packet/packet_network.h"
#include "sim/config/cluster_config.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

ClusterSetup clusterFrom(const std::string& yaml) {
  return loadCluster(ConfigNode(parseYaml(yaml, "test"), std::make_shared<ConfigOrigins>("test")));
}

// `servers` servers of one device each, every NIC on one switch.
ClusterSetup star(int servers, const std::string& roceExtra = "") {
  return clusterFrom("{name: star, servers: " + std::to_string(servers) +
                     ", devices: 1, hccs: {shape: ring, bandwidth: 12GB/s, latency: 1us},"
                     " roce: {bandwidth: 100Gbps, latency: 1us" +
                     roceExtra + "}}");
}

struct Counter final : DeliveryListener {
  std::vector<Time> at;
  EventEngine* engine;
  void onDelivered(std::uint64_t cookie) override {
    if (at.size() <= cookie) at.resize(cookie + 1, -1);
    at[cookie] = engine->now();
  }
};

double jain(const std::vector<double>& x) {
  double sum = std::accumulate(x.begin(), x.end(), 0.0), squares = 0;
  for (double v : x) squares += v * v;
  return sum * sum / (double(x.size()) * squares);
}

struct Incast {
  NetworkMetrics metrics;
  double fairness;   // Jain index of the senders' goodput over the middle of the run
  Time finish;
  // The receiver's queue every 10 us over the middle of the run (rates settled).
  std::vector<Bytes> queue;
  double offered; // the senders' summed DCQCN rates over the same samples, mean, of line rate
  double minShare; // the slowest sender's goodput over the middle of the run, of the mean
  double shareAtLeast(Bytes depth) const {
    return double(std::count_if(queue.begin(), queue.end(), [&](Bytes q) { return q >= depth; })) / double(queue.size());
  }
};

// N senders (devices 1..N) each send `bytes` to device 0 at once.
Incast incast(int n, Bytes bytes, const std::string& roceExtra) {
  ClusterSetup c = star(n + 1, roceExtra);
  EventEngine engine;
  PacketNetwork net(engine, c.cluster, c.roce, 1);
  Counter done;
  done.engine = &engine;
  net.setListener(&done);
  for (int s = 1; s <= n; ++s) net.send(c.cluster.rankNode[s], c.cluster.rankNode[0], bytes, std::uint64_t(s));
  // Ideal finish: all bytes through the receiver's port at line rate.
  double ideal = double(n) * double(bytes) / 12.5e9;
  auto delivered = [&] {
    std::vector<double> d;
    for (const auto& q : net.queuePairs()) d.push_back(double(q.delivered));
    return d;
  };
  engine.runUntil(Time(ideal * 0.3 * 1e12));
  std::vector<double> a = delivered();
  std::vector<Bytes> queue;
  double offered = 0;
  for (Time t = engine.now(); t < Time(ideal * 0.8 * 1e12); t += 10 * kPsPerUs) {
    engine.runUntil(t);
    queue.push_back(net.deepestSwitchQueue());
    for (const auto& q : net.queuePairs()) offered += q.rate / 12.5e9;
  }
  offered /= double(queue.size());
  engine.runUntil(Time(ideal * 0.8 * 1e12));
  std::vector<double> b = delivered();
  Time end = engine.run();
  Time finish = *std::max_element(done.at.begin(), done.at.end()); // the last delivery, not the last timer
  std::vector<double> rate;
  for (std::size_t i = 0; i < a.size(); ++i) rate.push_back(b[i] - a[i]);
  double mean = std::accumulate(rate.begin(), rate.end(), 0.0) / double(rate.size());
  return {net.metrics(end), jain(rate), finish, queue, offered, *std::min_element(rate.begin(), rate.end()) / mean};
}

} // namespace

TEST_CASE("one flow on an idle 100 Gbps path: line rate minus the RoCE framing") {
  ClusterSetup c = star(2);
  EventEngine engine;
  PacketNetwork net(engine, c.cluster, c.roce, 1);
  Counter done;
  done.engine = &engine;
  net.setListener(&done);
  const Bytes bytes = 64_MiB;
  net.send(c.cluster.rankNode[0], c.cluster.rankNode[1], bytes, 0);
  engine.run();
  // 4096-byte packets with 82 bytes of framing each (16 more on the first),
  // then the second hop's latency and last packet: goodput 4096 / 4178 of 12.5 GB/s.
  double packets = double(bytes) / 4096;
  double expected = (packets * 4178 + 16) / 12.5e9 + 2e-6 + 4178 / 12.5e9;
  CHECK_WITHIN(toSeconds(done.at[0]), expected, 1e-4);
  NetworkMetrics m = net.metrics(done.at[0]);
  CHECK(m.drops == 0);
  CHECK(m.ecnMarks == 0);
  REQUIRE(m.links.size() == 1);
  CHECK_WITHIN(m.links[0].goodputOfLineRate, 4096.0 / 4178, 1e-3);
}

TEST_CASE("the MTU sets the framing share") {
  for (std::uint32_t mtu : {1024u, 2048u, 4096u}) {
    CAPTURE(mtu);
    ClusterSetup c = star(2, ", mtu: " + std::to_string(mtu));
    EventEngine engine;
    PacketNetwork net(engine, c.cluster, c.roce, 1);
    Counter done;
    done.engine = &engine;
    net.setListener(&done);
    net.send(c.cluster.rankNode[0], c.cluster.rankNode[1], 16_MiB, 0);
    engine.run();
    double expected = double(16_MiB) / mtu * (mtu + 82) / 12.5e9;
    CHECK_WITHIN(toSeconds(done.at[0]), expected, 0.002);
  }
}

TEST_CASE("DCQCN, the paper's reaction point: each CNP cuts by alpha / 2, alpha moves per 55 us, timers bring it back") {
  RoceModel m;
  REQUIRE(applyDcqcnPreset("paper", m));
  const double line = 12.5e9, g = 1.0 / 256;
  DcqcnRate r(&m.dcqcn, 12'500'000'000ULL);
  CHECK_FALSE(r.limited());
  CHECK(r.onCnp(0) == DcqcnRate::CnpEffect::Cut); // alpha starts at 1: half rate
  CHECK(r.rate() == doctest::Approx(line / 2));
  CHECK(r.alpha(0) == 1.0);
  // The first CNP only sets alpha: its period ends in decay.
  CHECK(r.alpha(55 * kPsPerUs) == doctest::Approx(1 - g));
  // A CNP in the second period cuts with the alpha it has, then raises it at the period's end.
  CHECK(r.onCnp(60 * kPsPerUs) == DcqcnRate::CnpEffect::Cut);
  const double afterTwo = line / 2 * (1 - (1 - g) / 2);
  CHECK(r.rate() == doctest::Approx(afterTwo));
  CHECK(r.target() == doctest::Approx(line / 2)); // the target follows every cut
  CHECK(r.alpha(110 * kPsPerUs) == doctest::Approx((1 - g) * (1 - g) + g));
  CHECK(r.alpha(165 * kPsPerUs) == doctest::Approx(((1 - g) * (1 - g) + g) * (1 - g)));
  // Fast recovery halves the distance to the target, five rounds; the sixth adds R_AI (40 Mb/s) to it.
  r.onIncreaseTimer();
  CHECK(r.rate() == doctest::Approx((line / 2 + afterTwo) / 2));
  for (int i = 0; i < 4; ++i) r.onIncreaseTimer();
  CHECK(r.target() == doctest::Approx(line / 2));
  r.onIncreaseTimer();
  CHECK(r.target() == doctest::Approx(line / 2 + 5e6));
}

TEST_CASE("DCQCN as ConnectX ships it: CNPs in a 4 us period cut once at its end, alpha per 1 us, the target stays until the rate rises") {
  RoceModel m = defaultRoceModel();
  REQUIRE(m.dcqcnPreset == "connectx");
  const double line = 12.5e9, k = 1019.0 / 1024, g = 5.0 / 1024, a0 = 1023.0 / 1024;
  DcqcnRate r(&m.dcqcn, 12'500'000'000ULL);
  CHECK(r.onCnp(1'500'000) == DcqcnRate::CnpEffect::CutAtPeriodEnd);
  CHECK(r.cutDueAt() == 4 * kPsPerUs);
  CHECK(r.rate() == line); // nothing yet
  CHECK(r.onCnp(3 * kPsPerUs) == DcqcnRate::CnpEffect::AlreadyPending);
  r.onDecreaseTimer(4 * kPsPerUs);
  // alpha: 1023/1024 from 1 us, decays over periods 1 and 2, rises at the end of period 3 (its CNP).
  const double alpha4 = a0 * k * k * k + g;
  CHECK(r.alpha(4 * kPsPerUs) == doctest::Approx(alpha4));
  const double cut1 = line * (1 - alpha4 / 2);
  CHECK(r.rate() == doctest::Approx(cut1));
  CHECK(r.target() == line); // clamp_tgt_rate 0: no increase yet, the target stays
  // rpg_threshold 1: the first timer round is fast recovery, the second additive (at line rate already).
  r.onIncreaseTimer();
  const double up1 = (line + cut1) / 2;
  CHECK(r.rate() == doctest::Approx(up1));
  // After a timer increase the next cut moves the target down to the rate.
  CHECK(r.onCnp(400 * kPsPerUs) == DcqcnRate::CnpEffect::CutAtPeriodEnd);
  r.onDecreaseTimer(404 * kPsPerUs);
  const double alpha404 = (alpha4 * std::pow(k, 397) + g) * std::pow(k, 3);
  CHECK(r.alpha(404 * kPsPerUs) == doctest::Approx(alpha404));
  CHECK(r.target() == doctest::Approx(up1));
  CHECK(r.rate() == doctest::Approx(up1 * (1 - alpha404 / 2)));
  // The byte counter: 32767 x 64 bytes sent is one round.
  const double before = r.rate();
  r.onSent(32767 * 64 - 1);
  CHECK(r.rate() == before);
  r.onSent(1);
  CHECK(r.rate() == doctest::Approx((up1 + before) / 2));
}

TEST_CASE("incast: DCQCN flows converge to fair shares without drops under PFC") {
  // The DCQCN paper's parameters (Kmin 5 KB, Kmax 200 KB, Pmax 1 %).
  for (int n : {2, 8, 32}) {
    CAPTURE(n);
    Incast r = incast(n, Bytes(64'000'000) / Bytes(n) * 2, ", pfc: on, dcqcn: paper");
    CAPTURE(r.fairness);
    CAPTURE(r.metrics.queueP50);
    MESSAGE("incast " << n << "-to-1: Jain " << r.fairness << ", finish " << toMicroseconds(r.finish) << " us ("
                      << toSeconds(r.finish) / (double(64'000'000) * 2 / 12.5e9 * 4178 / 4096) << "x ideal), queue p50 "
                      << r.metrics.queueP50 << " B p99 " << r.metrics.queueP99 << " B max " << r.metrics.queueMax
                      << " B, ECN " << r.metrics.ecnMarks << ", CNPs " << r.metrics.cnps << ", pause "
                      << toMicroseconds(r.metrics.pauseTime) << " us; settled queue at or above Kmin "
                      << r.shareAtLeast(5'000) * 100 << " % of the time, above Kmax " << r.shareAtLeast(200'001) * 100
                      << " %, offered " << r.offered * 100 << " % of line rate");
    CHECK(r.metrics.drops == 0);
    CHECK(r.metrics.queueMax <= 4_MiB); // the buffer: PFC pauses the senders before it overflows
    CHECK(r.metrics.cnps > 0);
    CHECK(r.fairness >= 0.95);
    // Once the rates have settled the queue sits in the marking band (32
    // senders: 79 % of the time at or above Kmin), or below it only because
    // DCQCN's recovery has left the senders offering less than the line
    // rate, so the port drains: the paper's steps (40 Mb/s per 55 us, hyper
    // increase only after five 10 MB byte-counter rounds) were sized for
    // 40 G, and after the first cuts 2 senders offer 95 %, 8 offer 40 %.
    if (r.shareAtLeast(5'000) < 0.5) CHECK(r.offered < 1.0);
    if (n == 32) CHECK(r.shareAtLeast(5'000) >= 0.5);
  }
}

TEST_CASE("incast without PFC and a small buffer: drops, go-back-N, slower completion") {
  // Nine links of 33 KB headroom each into the switch: 400 KB leaves 100 KB
  // before PFC pauses (pfc_budget.h).
  Incast lossless = incast(8, 4'000'000, ", pfc: {xoff: 100KB, xon: 50KB}, buffer: 400KB, dcqcn: paper");
  Incast lossy = incast(8, 4'000'000, ", pfc: off, buffer: 400KB, dcqcn: paper");
  MESSAGE("8-to-1, 400 KB buffers: PFC on " << toMicroseconds(lossless.finish) << " us, " << lossless.metrics.pauseFrames
                                            << " pauses; PFC off " << toMicroseconds(lossy.finish) << " us, "
                                            << lossy.metrics.drops << " drops, " << lossy.metrics.retransmittedPackets
                                            << " resent, " << lossy.metrics.timeouts << " timeouts");
  CHECK(lossless.metrics.drops == 0);
  CHECK(lossless.metrics.queueMax <= 400'000);
  CHECK(lossless.metrics.pauseFrames > 0);
  CHECK(lossy.metrics.queueMax <= 400'000);
  CHECK(lossy.metrics.drops > 0);
  CHECK(lossy.metrics.retransmittedPackets >= lossy.metrics.drops);
  CHECK(lossy.finish > lossless.finish);
}

TEST_CASE("PFC pauses from a congested port slow a victim flow that shares an upstream link") {
  // Leaf 0: servers 0, 1, 2; leaf 1: servers 3, 4. Servers 0 and 1 send to
  // server 3 (two into one port); server 2 sends to server 4, whose port is
  // idle, over the same spine links, which have room for all three (2x
  // the leaves' downlinks). No DCQCN: the pauses act alone.
  auto run = [](bool incastOn, bool pfc) {
    ClusterSetup c = clusterFrom(std::string("{name: victim, servers: 5, devices: 1, hccs: {shape: ring, bandwidth: 12GB/s,"
                                        " latency: 1us}, roce: {bandwidth: 100Gbps, latency: 1us, dcqcn: off, ") +
                            (pfc ? "pfc: on" : "pfc: off, buffer: 16MB") +
                            "}, fabric: {type: leaf-spine, servers_per_leaf: 3, spines: 1, oversubscription: 0.5}}");
    EventEngine engine;
    PacketNetwork net(engine, c.cluster, c.roce, 1);
    Counter done;
    done.engine = &engine;
    net.setListener(&done);
    const Bytes bytes = 32'000'000;
    net.send(c.cluster.rankNode[2], c.cluster.rankNode[4], bytes, 0); // the victim
    if (incastOn) {
      net.send(c.cluster.rankNode[0], c.cluster.rankNode[3], 2 * bytes, 1);
      net.send(c.cluster.rankNode[1], c.cluster.rankNode[3], 2 * bytes, 2);
    }
    Time end = engine.run();
    return std::make_pair(done.at[0], net.metrics(end));
  };
  auto [alone, quiet] = run(false, true);
  auto [victim, spread] = run(true, true);
  auto [unpaused, lossy] = run(true, false);
  MESSAGE("victim flow: alone " << toMicroseconds(alone) << " us; beside the incast with PFC "
                                 << toMicroseconds(victim) << " us (" << spread.pauseFrames << " pauses, "
                                 << toMicroseconds(spread.pauseTime) << " us paused); without PFC "
                                 << toMicroseconds(unpaused) << " us");
  CHECK(quiet.pauseFrames == 0);
  CHECK(spread.pauseFrames > 0);
  CHECK(spread.pauseTime > 0);
  // Paused upstream links carry the victim's packets too: it finishes much later.
  CHECK(double(victim) > 1.5 * double(alone));
  // Without PFC (and a deep buffer) the victim's path is free: it finishes about on time.
  CHECK(double(unpaused) < 1.05 * double(alone));
  CHECK(lossy.drops > 0);   // the incast itself loses packets instead
  CHECK(spread.drops == 0); // PFC is lossless
}

TEST_CASE("jitter draws follow their distribution, per seed") {
  JitterModel u{JitterModel::Kind::Uniform, 100, 200};
  JitterSource a(u, 7), b(u, 7), c(u, 8);
  bool differs = false;
  for (int i = 0; i < 1000; ++i) {
    Time x = a.draw();
    CHECK(x >= 100);
    CHECK(x <= 200);
    CHECK(x == b.draw());
    differs |= x != c.draw();
  }
  CHECK(differs);
  JitterModel lp{JitterModel::Kind::LognormalPareto, 0, 0, 1000, 0.5, 0.01, 100'000, 2};
  JitterSource d(lp, 1);
  std::vector<Time> draws;
  for (int i = 0; i < 100000; ++i) draws.push_back(d.draw());
  std::sort(draws.begin(), draws.end());
  CHECK_WITHIN(double(draws[50000]), 1000.0, 0.05); // the median is the lognormal's
  CHECK(draws[99950] >= 100'000);                     // the top 1 % come from the Pareto tail
}

TEST_CASE("packet runs are deterministic per seed - without jitter the seed changes nothing") {
  auto run = [](std::uint64_t seed, const std::string& jitter) {
    ClusterSetup c = star(5, ", pfc: on" + jitter);
    EventEngine engine;
    PacketNetwork net(engine, c.cluster, c.roce, seed);
    for (int s = 1; s <= 4; ++s) net.send(c.cluster.rankNode[s], c.cluster.rankNode[0], 2'000'000, std::uint64_t(s));
    Time t = engine.run();
    NetworkMetrics m = net.metrics(t);
    return std::make_tuple(t, m.ecnMarks, m.cnps, m.latencyP99);
  };
  std::string tail = ", jitter: {median: 1us, sigma: 0.5, tail_fraction: 0.01, tail_scale: 5us}";
  CHECK(run(1, "") == run(2, ""));
  CHECK(run(1, tail) == run(1, tail));
  CHECK(run(1, tail) != run(2, tail));
}

namespace {

nlohmann::json runJson(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.insert(args.end(), {"--format", "json"});
  auto r = collsim::testing::cli(args);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}

} // namespace

TEST_CASE("fast and packet level agree within 5 % where nothing is congested") {
  // Flat ring and hierarchical AllReduce on 2 x 8 (one switch), flat ring on
  // 16 x 8 (leaf-spine, four hops between leaves), Ring on one HCCS server:
  // the fast model with its default 1 MiB segments against packets.
  using collsim::testing::source;
  struct Case {
    const char* cluster;
    const char* algorithms;
  };
  for (Case c : {Case{"configs/clusters/atlas-2x8.yaml", "[ring, hier:ring+rhd]"},
                 Case{"configs/clusters/atlas-16x8-leafspine.yaml", "[ring]"},
                 Case{"configs/clusters/hccs-ring-8.yaml", "[ring]"}}) {
    CAPTURE(c.cluster);
    std::vector<std::string> packet = {source("scenarios/roce-hierarchical-vs-flat.yaml"), "--set",
                                       std::string("cluster=") + source(c.cluster), "--set", "sizes=[64MiB]",
                                       "--set", std::string("algo=") + c.algorithms};
    auto fast = packet;
    fast.insert(fast.end(), {"--set", "simulation.fidelity=fast"});
    nlohmann::json f = runJson(fast), p = runJson(packet);
    REQUIRE(f["results"].size() == p["results"].size());
    CHECK(f["notes"].empty()); // no switch port shared: no congestion to warn of
    for (std::size_t i = 0; i < f["results"].size(); ++i) {
      CAPTURE(f["results"][i]["algorithm"].get<std::string>());
      CHECK(p["results"][i]["network"]["ecn_marks"] == 0);
      CHECK_WITHIN(f["results"][i]["time_us"].get<double>(), p["results"][i]["time_us"].get<double>(), 0.05);
    }
  }
}

TEST_CASE("a congested 2:1 leaf-spine: packets with the NICs' DCQCN stay near the fast model's fair shares") {
  // 64 MiB hierarchical AllReduce on 4 x 8, two servers per leaf, spines 2:1
  // oversubscribed: RHD's cross-leaf exchanges collide on uplinks and mark.
  // With PFC and no DCQCN the packet model loses only queueing to the fast
  // model's fair sharing; with ConnectX's DCQCN the cuts cost more, but the
  // rate climbs back half way within 300 us, and the next packet follows the
  // rate the NIC has now (a cut QP is not stuck behind a gap set at 1 Mb/s).
  using collsim::testing::source;
  // The cluster file spells out the connectx preset's parameters.
  std::vector<std::string> packet = {source("scenarios/roce-hierarchical-vs-flat.yaml"), "--set",
                                     "cluster=" + source("configs/clusters/atlas-4x8-leafspine-2to1.yaml"), "--set",
                                     "sizes=[64MiB]", "--set", "algo=[hier:ring+rhd]"};
  auto fast = packet;
  fast.insert(fast.end(), {"--set", "simulation.fidelity=fast"});
  auto withPfcOnly = packet;
  withPfcOnly.insert(withPfcOnly.end(), {"--set", "cluster.roce.pfc=on", "--set", "cluster.roce.dcqcn=off"});
  const nlohmann::json fastRun = runJson(fast);
  const double f = fastRun["results"][0]["time_us"].get<double>();
  // The fast run says it met a shared switch port, where packets would mark.
  REQUIRE(fastRun["notes"].size() == 1);
  CHECK(collsim::testing::contains(fastRun["notes"][0].get<std::string>(), "messages shared the switch port"));
  const nlohmann::json shipped = runJson(packet)["results"][0], pfc = runJson(withPfcOnly)["results"][0];
  MESSAGE("4x8 2:1 leaf-spine, 64 MiB hier:ring+rhd: fast " << f << " us; packet, PFC only "
                                                            << pfc["time_us"].get<double>() << " us; packet, connectx "
                                                            << shipped["time_us"].get<double>() << " us ("
                                                            << shipped["network"]["cnps"] << " CNPs)");
  CHECK(shipped["network"]["cnps"].get<int>() > 0); // congested: DCQCN acts
  CHECK_WITHIN(f, pfc["time_us"].get<double>(), 0.05);
  CHECK_WITHIN(f, shipped["time_us"].get<double>(), 0.25);
}

TEST_CASE("a NIC shared by a server's devices never marks or drops: it holds back its PCIe inputs") {
  // 4 servers x 8 devices on an HCCS mesh, 2 NICs per server behind PCIe
  // (32 GB/s each way): the inter-server ring of hier:mesh+ring sends through
  // the NICs, whose queues fill from 4 PCIe links at up to 4 x 32 GB/s into
  // one 100 Gbps port. A NIC is not a switch: no ECN, no drops; PCIe flow
  // control holds the devices back, so the packet model agrees with the fast
  // one (which has no drops by construction). Before NICs were their own
  // node kind they marked and dropped: 6,357 drops and 10x the fast time.
  collsim::testing::TempDir dir;
  std::string cluster = dir.write("nic.yaml", "name: shared-nic\nservers: 4\ndevices: 8\n"
                                              "hccs: {shape: mesh, bandwidth: 12GB/s, latency: 1us}\n"
                                              "nic: {per: server, count: 2, pcie: {bandwidth: 32GB/s, latency: 1us}}\n"
                                              "roce: {bandwidth: 100Gbps, latency: 2us}\n");
  std::vector<std::string> packet = {collsim::testing::source("scenarios/roce-hierarchical-vs-flat.yaml"), "--set",
                                     "cluster=" + cluster, "--set", "sizes=[64MiB]", "--set", "algo=hier:mesh+ring"};
  auto fast = packet;
  fast.insert(fast.end(), {"--set", "simulation.fidelity=fast"});
  nlohmann::json f = runJson(fast), p = runJson(packet);
  const auto& net = p["results"][0]["network"];
  CHECK(net["drops"] == 0);
  CHECK(net["ecn_marks"] == 0);
  CHECK(net["retransmitted_packets"] == 0);
  CHECK(net["pfc_pause_frames"] == 0); // PCIe back-pressure is not PFC
  CHECK_WITHIN(f["results"][0]["time_us"].get<double>(), p["results"][0]["time_us"].get<double>(), 0.05);
}

TEST_CASE("a DCQCN preset run on another line rate says so") {
  using collsim::testing::cli;
  using collsim::testing::source;
  std::vector<std::string> args = {"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--fidelity", "packet",
                                   "-b", "1MiB", "-e", "1MiB"};
  auto at100 = cli(args);
  CHECK(at100.out.find("DCQCN preset") == std::string::npos); // connectx is made for 100 Gbps
  args.insert(args.end(), {"--set", "roce.bandwidth=200Gbps"});
  auto at200 = cli(args);
  CHECK(at200.out.find("# note: DCQCN preset 'connectx' was made for 100Gbps links; it runs here on 25GB/s NIC links") !=
        std::string::npos);
  args.insert(args.end(), {"--format", "json"});
  CHECK(nlohmann::json::parse(cli(args).out)["notes"].size() == 1);
}

TEST_CASE("packet-level JSON: byte-identical per seed - without jitter the seed changes nothing else") {
  using collsim::testing::source;
  std::vector<std::string> base = {source("scenarios/roce-hierarchical-vs-flat.yaml"), "--set", "sizes=[4MiB]"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  std::string jitter = "cluster.roce.jitter={median: 1us, sigma: 0.5, tail_fraction: 0.01, tail_scale: 10us}";
  auto a = runJson(with({"--set", jitter, "--seed", "1"}));
  auto b = runJson(with({"--set", jitter, "--seed", "1"}));
  auto c = runJson(with({"--set", jitter, "--seed", "2"}));
  CHECK(a.dump() == b.dump());
  CHECK(a["results"] != c["results"]); // jitter draws differ
  auto quiet = [&](const char* seed) {
    auto j = runJson(with({"--set", "cluster.roce.jitter=none", "--set", "cluster.hccs.jitter=none", "--seed", seed}));
    j.erase("seed");
    j.erase("command_line"); // names the seed
    return j.dump();
  };
  CHECK(quiet("1") == quiet("2"));
}

TEST_CASE("ECN and buffers can differ per switch - an unknown switch name is an error") {
  Incast marked = incast(4, 4'000'000, ", pfc: on, dcqcn: paper");
  Incast unmarked = incast(4, 4'000'000, ", pfc: on, dcqcn: paper, switches: {switch: {ecn: off}}");
  CHECK(marked.metrics.ecnMarks > 0);
  CHECK(unmarked.metrics.ecnMarks == 0);
  CHECK(unmarked.metrics.cnps == 0);
  Incast shallow = incast(4, 4'000'000, ", pfc: off, dcqcn: off, switches: {switch: {buffer: 100KB}}");
  CHECK(shallow.metrics.drops > 0);
  CHECK_THROWS_WITH_AS(star(2, ", switches: {spine: {ecn: off}}"), doctest::Contains("no switch named spine"),
                       ConfigError);
}

TEST_CASE("incast under the ConnectX preset: fair shares, the port kept busy, no flow starved") {
  // Each sender sends 128 MB / N: the port's ideal is 128 MB at 4096/4178 of
  // 100 Gbps, 10.44 ms. ConnectX's defaults cut at most every 4 us and climb
  // back half way to an unclamped target within 300 us, so the port stays busy.
  const double ideal = double(64'000'000) * 2 / 12.5e9 * 4178 / 4096;
  for (std::string pfc : {"on", "off"}) {
    for (int n : {2, 8, 32}) {
      CAPTURE(n);
      CAPTURE(pfc);
      Incast r = incast(n, Bytes(64'000'000) / Bytes(n) * 2, ", pfc: " + pfc);
      MESSAGE("connectx incast " << n << "-to-1, PFC " << pfc << ": Jain " << r.fairness << ", slowest "
                                 << r.minShare * 100 << " % of the mean, finish " << toMicroseconds(r.finish)
                                 << " us (" << toSeconds(r.finish) / ideal << "x ideal), queue p50 "
                                 << r.metrics.queueP50 << " B p99 " << r.metrics.queueP99 << " B, ECN "
                                 << r.metrics.ecnMarks << ", CNPs " << r.metrics.cnps << ", drops " << r.metrics.drops
                                 << ", pause " << toMicroseconds(r.metrics.pauseTime) << " us, offered "
                                 << r.offered * 100 << " %");
      CHECK(r.metrics.cnps > 0);
      CHECK(r.fairness >= 0.95);
      // No flow starves; without PFC, drops and go-back-N cost some flows more (32-to-1: 66 %).
      CHECK(r.minShare >= (pfc == "on" ? 0.9 : 0.5));
      if (pfc == "on") {
        CHECK(r.metrics.drops == 0);
        CHECK(r.fairness >= 0.99);
        CHECK(toSeconds(r.finish) <= 1.3 * ideal);
        CHECK(r.offered >= 0.8); // after the first cuts the senders offer most of the line again
      } else {
        CHECK(toSeconds(r.finish) <= 2 * ideal);
      }
    }
  }
}
