// collsim topology: the figures it prints follow from the cluster file by
// hand (derivations in comments), routes are the simulator's, and every
// output form describes the same cluster.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

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
  CHECK(near["route"][0]["type"] == "hccs");
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
  CHECK(contains(fast.out, "roce    128    200Gbps"));
}
