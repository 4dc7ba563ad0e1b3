// collsim topology: the figures it prints follow from the cluster file by
// hand (derivations in comments), routes are the simulator's, and every
// output form describes the same cluster.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "relative_error.h"
#include "test_support.h"

using namespace collsim::testing;

namespace {
const std::string kLeafSpine = source("configs/clusters/atlas-16x8-leafspine.yaml");
nlohmann::json topologyJson(std::vector<std::string> extra) {
  std::vector<std::string> args{"topology", kLeafSpine, "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  CliResult r = cli(args);
  REQUIRE(r.status == 0);
  return nlohmann::json::parse(r.out);
}
} // namespace

TEST_CASE("topology: leaf-spine tiers, oversubscription and bisection follow from the file") {
  // 16 servers x 8 devices, a 100 Gb/s (12.5 GB/s) port per device, 4
  // servers per leaf: a leaf has 32 ports down = 400 GB/s. Non-blocking, its
  // uplinks carry the same; the 8 spines take 4 leaves x 400 GB/s down.
  // Bisection (servers 0-7 to 8-15): 64 devices x 12.5 GB/s = 800 GB/s,
  // which the two leaves' uplinks (2 x 400 GB/s) also carry.
  auto doc = topologyJson({});
  REQUIRE(doc["tiers"].size() == 2);
  CHECK(doc["tiers"][0]["switches"] == 4);
  CHECK(doc["tiers"][0]["down_Bps"] == 4 * 32 * 12'500'000'000ULL);
  CHECK(doc["tiers"][0]["oversubscription"] == doctest::Approx(1.0));
  CHECK(doc["tiers"][1]["switches"] == 8);
  CHECK(doc["bisection_Bps"].get<double>() == doctest::Approx(800e9));
  CHECK(doc["devices"].size() == 128);
  CHECK(doc["devices"][9]["exit"] == "s1.dev1"); // a port of its own
  // 4:1 -> each leaf's uplinks carry 100 GB/s; half the servers sit under
  // two leaves: 200 GB/s across the middle.
  auto four = topologyJson({"--set", "fabric.oversubscription=4"});
  CHECK(four["tiers"][0]["oversubscription"] == doctest::Approx(4.0));
  CHECK(four["bisection_Bps"].get<double>() == doctest::Approx(200e9));
}

TEST_CASE("topology --route: the simulator's path, up to a spine and down between leaves") {
  // Rank 0 (server 0, leaf 0) to rank 127 (server 15, leaf 3): device ->
  // leaf0 -> a spine -> leaf3 -> device.
  auto doc = topologyJson({"--route", "0", "127"});
  REQUIRE(doc["route"].size() == 4);
  CHECK(doc["route"][0]["from"] == "s0.dev0");
  CHECK(doc["route"][1]["from"] == "leaf0");
  CHECK(doc["route"][2]["to"] == "leaf3");
  CHECK(doc["route"][3]["to"] == "s15.dev7");
  // Neighbours on the HCCS ring: one hop, inside the server.
  auto near = topologyJson({"--route", "0", "1"});
  REQUIRE(near["route"].size() == 1);
  CHECK(near["route"][0]["tier"] == "scale_up");
  CHECK(near["route"][0]["name"] == "HCCS");
  CliResult bad = cli({"topology", kLeafSpine, "--route", "0", "128"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "no rank 128"));
}

TEST_CASE("topology: table and dot show the same cluster as the JSON") {
  auto doc = topologyJson({});
  CliResult dot = cli({"topology", kLeafSpine, "--format", "dot"});
  REQUIRE(dot.status == 0);
  std::size_t edges = 0;
  for (std::size_t at = 0; (at = dot.out.find(" -- ", at)) != std::string::npos; ++at) ++edges;
  CHECK(edges == doc["links"].size());
  CHECK(contains(dot.out, "subgraph cluster_server15"));
  CliResult table = cli({"topology", kLeafSpine});
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "# bisection: servers 0-7 to servers 8-15 at most 800.0 GB/s"));
  CHECK(cli({"topology", kLeafSpine, "--format", "csv"}).status == 2);
  // Line rates in bits, as NICs are sold: 200 Gb/s is not echoed as 25GB/s.
  CliResult fast = cli({"topology", kLeafSpine, "--set", "roce.bandwidth=200Gbps"});
  CHECK(contains(fast.out, "a RoCE NIC per device at 200Gbps"));
  CHECK(contains(fast.out, "RoCE    128    200Gbps")); // the link by the name the file gives it
}

namespace {
// 2 servers x 2 devices, one NIC per server behind a PCIe switch whose
// uplink (1 GB/s) the two devices share; HCCS 100 GB/s, RoCE 400 Gb/s.
const char* kSharedPcie =
    "name: pcie-test\nservers: 2\ndevices: 2\nhccs: {shape: ring, bandwidth: 100GB/s, latency: 1us}\n"
    "nic: {per: server, count: 1, pcie: {bandwidth: 32GB/s, latency: 1us, shared: true, uplink: 1GB/s}}\n"
    "roce: {bandwidth: 400Gbps, latency: 1us}\n";

double ringTimeUs(const std::string& cluster, std::vector<std::string> sets) {
  std::vector<std::string> args{"perf", "--cluster", cluster, "-b", "64MiB", "-e", "64MiB", "--format", "json"};
  for (const auto& s : sets) args.insert(args.end(), {"--set", s});
  CliResult r = cli(args);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  return nlohmann::json::parse(r.out)["results"][0]["time_us"].get<double>();
}
} // namespace

TEST_CASE("a shared PCIe uplink: built as a switch per NIC, shown on the way out, and the ring's bottleneck") {
  TempDir dir;
  std::string file = dir.write("pcie.yaml", kSharedPcie);
  CliResult shown = cli({"topology", file, "--format", "json"});
  REQUIRE(shown.status == 0);
  auto doc = nlohmann::json::parse(shown.out);
  for (const auto& d : doc["devices"]) {
    CHECK(d["via"].size() == 1);
    CHECK(d["way_there_Bps"] == 1'000'000'000ULL); // the uplink, not the device's 32 GB/s
  }
  CHECK(doc["devices"][0]["via"][0] == "s0.pciesw0");
  // Ring AllReduce of n = 64 MiB on 4 ranks (order s0.dev0, s0.dev1,
  // s1.dev0, s1.dev1): in each of its 2(p-1) = 6 steps, s0.dev1 sends n/4 up
  // server 0's uplink and s0.dev0 receives n/4 down it (full duplex: one
  // flow per direction), likewise on server 1; every other link is 32x
  // faster or more. So the ring takes 6 x (n/4) / 1 GB/s = 100.663 ms, plus
  // latencies and the other links' share of a 1 MiB segment (< 0.5 %).
  const double n = 67108864, bound = 6 * (n / 4) / 1e9 * 1e6;
  double shared = ringTimeUs(file, {});
  CHECK(shared >= bound);
  CHECK(shared <= bound * 1.005);
  // Twice the uplink, half the time; without sharing, the 32 GB/s device
  // links and the 50 GB/s ports set the pace instead.
  CHECK_WITHIN(ringTimeUs(file, {"nic.pcie.uplink=2GB/s"}), shared / 2, 0.005);
  CHECK(ringTimeUs(file, {"nic.pcie={bandwidth: 32GB/s, latency: 1us}"}) < shared / 20);
}

TEST_CASE("the device-to-NIC map: interleave, block, or a list") {
  // p4d: 8 devices, 4 NICs per server.
  const std::string p4d = source("configs/clusters/p4d-2x8-efa.yaml");
  auto exits = [&](const std::string& map) {
    CliResult r = cli({"topology", p4d, "--format", "json", "--set", "nic.map=" + map});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    std::string nics; // server 0's devices' NICs, "s0.nicK" as K
    auto doc = nlohmann::json::parse(r.out);
    for (const auto& d : doc["devices"])
      if (d["server"] == 0) nics += d["exit"].get<std::string>().substr(6);
    return nics;
  };
  CHECK(exits("interleave") == "01230123");
  CHECK(exits("block") == "00112233");
  CHECK(exits("[3,3,3,3,2,2,1,0]") == "33332210");

  CliResult shortList = cli({"topology", p4d, "--set", "nic.map=[0,1]"});
  CHECK(shortList.status == 2);
  CHECK(contains(shortList.err, "nic.map: lists 2 NIC(s); it needs one per device (8)"));
  CliResult noNic = cli({"topology", p4d, "--set", "nic.map=[0,1,2,3,4,0,0,0]"});
  CHECK(noNic.status == 2);
  CHECK(contains(noNic.err, "nic.map[4]: NIC 4 does not exist: the NICs are 0..3"));
  CliResult perDevice = cli({"topology", source("configs/clusters/atlas-2x8.yaml"), "--set", "nic.map=block"});
  CHECK(perDevice.status == 2);
  CHECK(contains(perDevice.err, "'count', 'pcie' and 'map' only go with per: server"));
  CliResult loneUplink = cli({"topology", p4d, "--set", "nic.pcie.uplink=8GB/s"});
  CHECK(loneUplink.status == 2);
  CHECK(contains(loneUplink.err, "'uplink' goes with shared: true"));
}

TEST_CASE("topology names the switches that reduce, with the share of their ports' rate they reduce at") {
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  CliResult table = cli({"topology", h100, "--set", "fabric.reduce=true"});
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "# 2 switches reduce and multicast (in-network algorithms), at 0.74 of the rate of their ports"));
  CHECK(contains(table.out, "# 1 switch reduces and multicasts (in-network algorithms), at the full rate of its ports"));
  CliResult json = cli({"topology", h100, "--format", "json"});
  REQUIRE(json.status == 0);
  int reducing = 0;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  for (const auto& node : doc["nodes"]) {
    if (!node["reduces"].get<bool>()) {
      CHECK(node["reduce_efficiency"].is_null());
      continue;
    }
    ++reducing;
    CHECK(node["reduce_efficiency"].get<double>() == 0.74);
  }
  CHECK(reducing == 2);
  // Nothing is said of a cluster whose switches only forward.
  CHECK_FALSE(contains(cli({"topology", kLeafSpine}).out, "reduce"));
}

// Each device's exit is a route search over the whole cluster: listing all
// 262,144 devices of 32,768 servers did not finish in two minutes. The
// table lists the first servers' devices and says so.
TEST_CASE("topology of a very large cluster lists its first servers' devices") {
  CliResult r = cli({"topology", source("configs/clusters/atlas-2x8.yaml"), "--set", "servers=1024", "--format", "json"});
  REQUIRE(r.status == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc["devices"].size() == 16 * 8);
  CHECK(doc["devices_of_servers"] == 16);
  CliResult table = cli({"topology", source("configs/clusters/atlas-2x8.yaml"), "--set", "servers=1024"});
  CHECK(contains(table.out, "# devices and where they leave their server (servers 0-15 of 1024; the others are built alike)"));
}

// A cluster file names its tiers (h100-2x8-ib400: NVLink and InfiniBand);
// every output calls them so: the topology's links and route, the network
// table's columns, JSON's "name" beside the stable "tier" key, the busiest
// links. No output says "hccs" or "(roce)" for a cluster that does not
// (`roce.dcqcn` is the RoCE model's own key, named in a note).
TEST_CASE("outputs call each link tier by the cluster file's name for it") {
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  CliResult topo = cli({"topology", "--cluster", h100, "--format", "json", "--route", "0", "8"});
  REQUIRE(topo.status == 0);
  auto doc = nlohmann::json::parse(topo.out);
  std::map<std::string, std::string> names; // tier key -> name
  for (const auto& l : doc["links"]) names[l["tier"]] = l["name"];
  CHECK(names["scale_up"] == "NVLink");
  CHECK(names["scale_out"] == "InfiniBand");
  CHECK(names.count("pcie") == 0); // each GPU has its own NIC port
  bool crossesInfiniBand = false;
  for (const auto& h : doc["route"]) crossesInfiniBand = crossesInfiniBand || h["name"] == "InfiniBand";
  CHECK(crossesInfiniBand);

  const std::vector<std::string> perf{"perf", "--cluster", h100, "-b", "16MiB", "-e", "16MiB", "--algo", "ring",
                                      "--fidelity", "packet"};
  CliResult table = cli(perf);
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "InfiniBand_util"));
  CHECK(contains(table.out, "NVLink_util"));
  std::vector<std::string> json = perf;
  json.insert(json.end(), {"--format", "json"});
  CliResult j = cli(json);
  REQUIRE(j.status == 0);
  for (const char* old : {"hccs", "\"type\"", "(roce)"}) {
    CAPTURE(old);
    CHECK_FALSE(contains(j.out, old));
  }
  CHECK(contains(j.out, "\"name\": \"InfiniBand\""));
  CHECK(contains(j.out, "s0.dev0 -> switch (InfiniBand)")); // a busiest link
}
