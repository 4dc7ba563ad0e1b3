// Golden times for the link model, derived by hand.
#include <doctest/doctest.h>

#include <map>

#include <numeric>

#include "sim/config/cluster_config.h"
#include "sim/network/link_network.h"
#include "topologies/server_shapes.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

struct Deliveries final : DeliveryListener {
  EventEngine* engine;
  std::map<std::uint64_t, Time> at;
  void onDelivered(std::uint64_t cookie) override { at[cookie] = engine->now(); }
};

Cluster chain(int devices, std::vector<std::pair<int, int>> links) {
  ServerParams p;
  p.devices = devices;
  p.shape = HccsShape::Custom;
  p.customLinks = std::move(links);
  p.hccs = {12_GBps, 1_us};
  return buildServer(p);
}

Time deliver(const Cluster& c, int src, int dst, Bytes bytes, Bytes segment) {
  EventEngine engine;
  LinkNetwork net(engine, c, 4096, segment);
  Deliveries d;
  d.engine = &engine;
  net.setListener(&d);
  net.send(c.rankNode[src], c.rankNode[dst], bytes, 7);
  engine.run();
  REQUIRE(d.at.count(7) == 1);
  return d.at[7];
}

} // namespace

TEST_CASE("one link: latency + bytes / bandwidth, whatever the segment size") {
  Cluster c = chain(2, {{0, 1}});
  // 1 MiB in 16 segments of 64 KiB: each segment takes
  // ceil(65536 B / 12e9 B/s in ps) = ceil(5461333.3) = 5461334 ps; the last
  // one leaves at 16 x 5461334 ps and arrives 1 us later.
  CHECK(deliver(c, 0, 1, 1_MiB, 64_KiB) == 16 * 5'461'334 + 1'000'000);
  // One 1 MiB segment: ceil(87381333.3) = 87381334 ps + 1 us.
  CHECK(deliver(c, 0, 1, 1_MiB, 1_MiB) == 87'381'334 + 1'000'000);
  // Zero bytes still pay the latency.
  CHECK(deliver(c, 0, 1, 0, 4_KiB) == 1'000'000);
}

TEST_CASE("three hops: forwarding packet by packet, whatever the segment size") {
  Cluster c = chain(4, {{0, 1}, {1, 2}, {2, 3}});
  // A 4096-byte packet takes p = ceil(341333.3) = 341334 ps. Each forwarding
  // hop adds one packet and one latency: n / B + 2 p + 3 us.
  // 1 MiB in 4 segments of 256 KiB, s = ceil(21845333.3) = 21845334 ps:
  CHECK(deliver(c, 0, 3, 1_MiB, 256_KiB) == 3'000'000 + 4 * 21'845'334 + 2 * 341'334);
  // One 1 MiB segment, s1 = 87381334 ps:
  CHECK(deliver(c, 0, 3, 1_MiB, 1_MiB) == 3'000'000 + 87'381'334 + 2 * 341'334);
  // Packet-sized segments: store and forward of the packets themselves.
  CHECK(deliver(c, 0, 3, 1_MiB, 4_KiB) == 3'000'000 + 256 * 341'334 + 2 * 341'334);
}

TEST_CASE("messages sharing a channel take turns segment by segment") {
  // 0 -> 2 -> 3 and 1 -> 2 -> 3 share channel 2->3.
  Cluster c = chain(4, {{0, 2}, {1, 2}, {2, 3}});
  EventEngine engine;
  LinkNetwork net(engine, c, 4096, 64_KiB);
  Deliveries d;
  d.engine = &engine;
  net.setListener(&d);
  net.send(c.rankNode[0], c.rankNode[3], 1_MiB, 1);
  net.send(c.rankNode[1], c.rankNode[3], 1_MiB, 2);
  engine.run();
  const Time seg = 5'461'334, packet = 341'334;
  // The shared channel starts once the first packet is at node 2 (packet +
  // 1 us) and carries 32 segments back to back; the last arrives 1 us after
  // it leaves.
  Time last = packet + 1'000'000 + 32 * seg + 1'000'000;
  CHECK(std::max(d.at[1], d.at[2]) == last);
  // Fair share: the first message finishes only one segment before the other.
  CHECK(std::max(d.at[1], d.at[2]) - std::min(d.at[1], d.at[2]) == seg);
  // Each channel's statistics add up to the bytes sent through it.
  Bytes total = 0;
  for (const auto& s : net.channelStats()) total += s.bytes;
  CHECK(total == 4_MiB); // 2 messages x 2 hops x 1 MiB
}

TEST_CASE("queue pairs: a RoCE message is striped in whole packets over the pair's ECMP paths and delivered once") {
  // Two one-device servers on two leaves joined by four spines: a flow's
  // leaf-to-spine uplink is its ECMP choice.
  ClusterSetup setup = loadCluster(ConfigNode(
      parseYaml("{name: ls, servers: 2, devices: 1, hccs: {shape: ring, bandwidth: 12GB/s, latency: 1us},"
                " roce: {bandwidth: 100Gbps, latency: 1us},"
                " fabric: {type: leaf-spine, servers_per_leaf: 1, spines: 4}}",
                "test"),
      std::make_shared<ConfigOrigins>("test")));
  const Cluster& c = setup.cluster;
  // Bytes a message leaves on the uplinks (leaf to spine directions), per uplink used.
  auto uplinks = [&](int queuePairs, Bytes bytes) {
    EventEngine engine;
    LinkNetwork net(engine, c, 4096, 1_MiB, queuePairs);
    Deliveries d;
    d.engine = &engine;
    net.setListener(&d);
    net.send(c.rankNode[0], c.rankNode[1], bytes, 7);
    engine.run();
    CHECK(d.at.size() == 1); // one delivery, when the last part is in
    std::vector<Bytes> used;
    for (std::size_t l = 0; l < c.links.size(); ++l) {
      const ClusterLink& link = c.links[l];
      bool leafToSpine = c.nodes[std::size_t(link.a)].name.rfind("leaf", 0) == 0 &&
                         c.nodes[std::size_t(link.b)].name.rfind("spine", 0) == 0;
      if (!leafToSpine) continue;
      if (Bytes b = net.channelStats()[2 * l].bytes) used.push_back(b);
    }
    return used;
  };
  auto sum = [](const std::vector<Bytes>& v) { return std::accumulate(v.begin(), v.end(), Bytes(0)); };
  std::vector<Bytes> one = uplinks(1, 64_MiB), eight = uplinks(8, 64_MiB);
  CHECK(one.size() == 1);
  CHECK(eight.size() > 1); // eight parts hash onto more than one spine
  CHECK(sum(eight) == 64_MiB);
  // 8 MiB per part: each uplink carries a multiple of it.
  for (Bytes b : eight) CHECK(b % 8_MiB == 0);
  // Two packets go as two parts of one packet each, not eight.
  std::vector<Bytes> small = uplinks(8, 8_KiB);
  CHECK(sum(small) == 8_KiB);
  CHECK(small.size() <= 2);
}
