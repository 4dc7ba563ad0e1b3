// N-tier clusters: `tiers:` lists every tier from the devices up, and the
// two-tier spelling (scale_up, scale_out, fabric) is one such list. The
// oracles: the same cluster spelled both ways builds the same links and runs
// to the same picosecond; link counts, capacities and routes of a
// three-tier fabric follow from its sizes by hand; and an oversubscribed
// spine slows traffic that crosses it by its ratio, through the mechanism
// (the links it sizes), the same as giving those links' bandwidth.
#include <doctest/doctest.h>

#include <algorithm>

#include "algorithms/core/registry.h"
#include "sim/config/cluster_config.h"
#include "sim/network/routing.h"
#include "sim/run/simulate.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::literals;
using namespace collsim::testing;

namespace {

ClusterSetup load(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  TempDir dir;
  return loadClusterFile(dir.write("c.yaml", yaml), overrides);
}

const std::string kServer = "devices: 8\nscale_up: {name: NVLink, shape: switch, bandwidth: 450GB/s, latency: 1us}\n";
const std::string kTier0 = "devices: 8\ntiers:\n  - {name: NVLink, shape: switch, bandwidth: 450GB/s, latency: 1us}\n";

Time allReduceTime(const Cluster& c, const std::string& algo, Bytes n) {
  AlgorithmEntry entry = *findAlgorithm(Collective::AllReduce, algo);
  RunRequest req{Collective::AllReduce, &entry, DataType::Int8, n, 1_MiB, true};
  return simulateCollective(c, req).execution.finish;
}

// The links of two clusters agree one by one: ends, rate, latency, kind.
void checkSameLinks(const Cluster& a, const Cluster& b) {
  REQUIRE(a.links.size() == b.links.size());
  REQUIRE(a.nodes.size() == b.nodes.size());
  for (std::size_t i = 0; i < a.links.size(); ++i) {
    CHECK(a.links[i].a == b.links[i].a);
    CHECK(a.links[i].b == b.links[i].b);
    CHECK(a.links[i].tier == b.links[i].tier);
    CHECK(a.links[i].params.bandwidth == b.links[i].params.bandwidth);
    CHECK(a.links[i].params.latency == b.links[i].params.latency);
  }
}

int linksNamed(const Cluster& c, const std::string& tier) {
  int n = 0;
  for (const ClusterLink& l : c.links) n += c.tierName(l) == tier;
  return n;
}

} // namespace

TEST_CASE("a leaf-spine and a rail fabric spelled as tiers build the same links and run to the same picosecond") {
  SUBCASE("leaf-spine, 2:1") {
    Cluster twoTier = load("servers: 8\n" + kServer +
                           "scale_out: {bandwidth: 400Gbps, latency: 2us}\n"
                           "fabric: {type: leaf-spine, servers_per_leaf: 2, spines: 4, oversubscription: 2, uplink_latency: 1us}\n")
                          .cluster;
    Cluster tiers = load("servers: 8\n" + kTier0 +
                         "  - {name: leaf, size: 2, bandwidth: 400Gbps, latency: 2us}\n"
                         "  - {name: spine, switches_per_group: 4, oversubscription: 2, latency: 1us}\n")
                        .cluster;
    checkSameLinks(twoTier, tiers);
    CHECK(twoTier.fabric == tiers.fabric);
    CHECK(allReduceTime(twoTier, "rhd", 64_MiB) == allReduceTime(tiers, "rhd", 64_MiB));
    // The two-tier spelling names both switch tiers after its network; the
    // tiers form each by its own name.
    CHECK(linksNamed(twoTier, "scale-out") == 64 + 4 * 4);
    CHECK(linksNamed(tiers, "leaf") == 64);
    CHECK(linksNamed(tiers, "spine") == 4 * 4);
  }
  SUBCASE("rail with spines") {
    Cluster twoTier = load("servers: 4\n" + kServer +
                           "scale_out: {bandwidth: 400Gbps, latency: 2us}\nfabric: {type: rail, spines: 2}\n")
                          .cluster;
    Cluster tiers = load("servers: 4\n" + kTier0 +
                         "  - {shape: rail, bandwidth: 400Gbps, latency: 2us}\n"
                         "  - {name: spine, switches_per_group: 2, latency: 0us}\n")
                        .cluster;
    checkSameLinks(twoTier, tiers);
    CHECK(tiers.fabric == FabricKind::Rail);
    CHECK(allReduceTime(twoTier, "ring", 16_MiB) == allReduceTime(tiers, "ring", 16_MiB));
  }
}

TEST_CASE("a three-tier fabric: rail groups under spines, its links, capacities and routes by hand") {
  // 8 servers x 8 devices; rails in groups of 4 servers (2 groups x 8 rail
  // switches = 16), 2 spines over them.
  Cluster c = load("name: t\nservers: 8\n" + kTier0 +
                   "  - {name: rail, shape: rail, size: 4, bandwidth: 400Gbps, latency: 1us}\n"
                   "  - {name: spine, switches_per_group: 2, latency: 1us}\n")
                  .cluster;
  REQUIRE(c.tiers.size() == 4); // NVLink, rail, spine, PCIe
  CHECK(c.tiers[1].name == "rail");
  CHECK(c.tiers[2].kind == LinkTier::ScaleOut);
  CHECK(linksNamed(c, "NVLink") == 64);
  CHECK(linksNamed(c, "rail") == 64); // one per device
  CHECK(linksNamed(c, "spine") == 16 * 2);
  // A rail switch has 4 servers' NICs below it: 4 x 50 GB/s, shared by its
  // 2 spines non-blocking: 100 GB/s each.
  for (const ClusterLink& l : c.links)
    if (c.tierName(l) == "spine") CHECK(l.params.bandwidth == 100_GBps);
  Routing routing(c);
  // Same rail group, same NIC index: device -> rail -> device.
  CHECK(routing.route(c.rankNode[0], c.rankNode[8]).hops == 2);
  // Other group: device -> rail -> spine -> rail -> device.
  CHECK(routing.route(c.rankNode[0], c.rankNode[63]).hops == 4);
  // Devices the rails do not join meet over NVLink first (2 hops), as NCCL's PXN does.
  CHECK(routing.route(c.rankNode[0], c.rankNode[1]).hops == 2);
  CHECK(contains(c.description, "rail: 16 rail switches, 4 servers a group; spine: 2 switches"));
}

TEST_CASE("an oversubscribed spine slows what crosses it by its ratio, as its links' bandwidth given does") {
  // Two servers, each its own rail group: every inter-server byte crosses
  // a spine. A rail switch carries one 400 Gb/s NIC down; 4:1 leaves it
  // 100 Gb/s up.
  const std::string cluster = "servers: 2\n" + kTier0 +
                              "  - {name: rail, shape: rail, size: 1, bandwidth: 400Gbps, latency: 1us}\n"
                              "  - {name: spine, latency: 1us}\n";
  Cluster open = load(cluster).cluster;
  Cluster ratio = load(cluster, {"tiers.2.oversubscription=4"}).cluster;
  Cluster given = load(cluster, {"tiers.2.bandwidth=100Gbps"}).cluster;
  checkSameLinks(ratio, given);
  const Time a = allReduceTime(open, "rhd", 256_MiB), b = allReduceTime(ratio, "rhd", 256_MiB);
  CHECK(b == allReduceTime(given, "rhd", 256_MiB));
  // Inside the servers the AllReduce runs over NVLink at 450 GB/s, across
  // them at the spine's rate: the inter-server share slows 4x, the whole
  // between 3x and 4x.
  CHECK(double(b) / double(a) > 3);
  CHECK(double(b) / double(a) < 4);
}

TEST_CASE("tiers: bad input is refused at its place, with the list's index") {
  auto refusal = [](const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    try {
      load(yaml, overrides);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  const std::string three = "servers: 4\n" + kTier0 +
                            "  - {name: rail, shape: rail, bandwidth: 400Gbps, latency: 1us}\n"
                            "  - {name: spine, latency: 1us}\n";
  CHECK(contains(refusal(three + "scale_out: {bandwidth: 1Gbps, latency: 1us}\n"),
                 "c.yaml:7:12: scale_out: 'scale_out' belongs to the two-tier spelling"));
  CHECK(contains(refusal("servers: 2\n" + kTier0), "tiers: a cluster of several servers needs a tier above its servers' own"));
  CHECK(contains(refusal("devices: 8\ntiers: []\n"), "tiers: expected a list of tiers"));
  CHECK(contains(refusal(three, {"tiers.2.shape=rail"}), "tiers[2].shape"));
  CHECK(contains(refusal(three, {"tiers.1.switches_per_group=2"}), "tiers[1].switches_per_group: a NIC port joins one switch"));
  CHECK(contains(refusal(three, {"tiers.2.name=rail"}), "tiers[2].name: tier 2 is named 'rail' as a tier below it is"));
  CHECK(contains(refusal(three, {"tiers.2.oversubscriptin=2"}), "did you mean 'oversubscription'?"));
  CHECK(contains(refusal(three, {"tiers.2.oversubscription=2", "tiers.2.bandwidth=10Gbps"}),
                 "tiers[2].oversubscription: oversubscription sizes the links up"));
  CHECK(contains(refusal(three, {"tiers.3.latency=1us"}), "'3' is not an item of this list; its items are 0..2"));
  CHECK(contains(refusal(three, {"tiers.2.reduce=true"}), "tiers[2].reduce: only tier 1"));
}

TEST_CASE("the network table gives a tier above the first its own column, named as the file names it") {
  TempDir dir;
  const std::string cluster = dir.write("c.yaml", "servers: 2\n" + kTier0 +
                                                      "  - {name: rail, shape: rail, size: 1, bandwidth: 400Gbps, latency: 1us}\n"
                                                      "  - {name: spine core, latency: 1us}\n");
  CliResult r = cli({"perf", "--cluster", cluster, "-b", "1MiB", "-e", "1MiB", "--fidelity", "packet"});
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "rail_util  rail_max  rail_goodput  NVLink_util  spine_core_util"));
  // Every inter-server byte crosses a spine: its column is not empty.
  const std::vector<std::string> lines = splitLines(r.out);
  auto row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return contains(l, "ring  1MiB"); });
  REQUIRE(row != lines.end());
  CHECK(!contains(*row, " - "));
}
