#include "topologies/cluster_graph.h"

#include <map>

#include <boost/iterator/counting_iterator.hpp>
#include <boost/pending/disjoint_sets.hpp>

namespace collsim::graph {

void checkLink(const LinkParams& l, const std::string& what) {
  if (l.bandwidth == 0) throw TopologyError(what + " bandwidth must be positive");
  if (l.latency < 0) throw TopologyError(what + " latency must not be negative");
}

void checkConnected(const Graph& g) {
  boost::disjoint_sets_with_storage<> parts(g.nodes.size());
  for (int v = 0; v < int(g.nodes.size()); ++v) parts.make_set(v);
  for (const ClusterLink& l : g.links) parts.union_set(l.a, l.b);
  boost::counting_iterator<int> first(0), last(int(g.nodes.size()));
  const std::size_t n = parts.count_sets(first, last);
  if (n > 1) throw TopologyError("topology is disconnected: " + std::to_string(n) + " separate parts");
}

Vertex addNode(Graph& g, NodeKind kind, const std::string& name, int server) {
  g.nodes.push_back({kind, name, server, false, 1});
  return Vertex(g.nodes.size() - 1);
}

std::uint8_t Graph::level(LinkTier kind, const std::string& name) {
  for (std::size_t i = 0; i < tiers.size(); ++i)
    if (tiers[i].kind == kind && tiers[i].name == name) return std::uint8_t(i);
  if (tiers.size() > 255) throw TopologyError("a cluster has at most 256 tiers");
  tiers.push_back({kind, name});
  return std::uint8_t(tiers.size() - 1);
}

void addLink(Graph& g, Vertex a, Vertex b, const LinkParams& params, LinkTier tier, std::uint8_t level) {
  g.links.push_back({a, b, params, tier, level});
}

std::vector<Vertex> addServer(Graph& g, const ServerParams& p, const std::string& prefix, int server) {
  if (p.devices < 1) throw TopologyError("a server needs at least one device, got " + std::to_string(p.devices));
  if (p.devices > 1) checkLink(p.hccs, p.linkName + " link");
  std::vector<Vertex> dev;
  for (int d = 0; d < p.devices; ++d) dev.push_back(addNode(g, NodeKind::Device, prefix + "dev" + std::to_string(d), server));
  const std::uint8_t scaleUp = g.level(LinkTier::ScaleUp, p.linkName);
  auto hccs = [&](int a, int b) { addLink(g, dev[a], dev[b], p.hccs, LinkTier::ScaleUp, scaleUp); };
  auto pcie = [&](Vertex a, Vertex b) { addLink(g, a, b, p.interGroup, LinkTier::Pcie, g.level(LinkTier::Pcie, kPcieTierName)); };

  switch (p.shape) {
  case HccsShape::Ring:
    if (p.devices == 2) hccs(0, 1);
    else if (p.devices > 2)
      for (int d = 0; d < p.devices; ++d) hccs(d, (d + 1) % p.devices);
    break;
  case HccsShape::Mesh:
    for (int a = 0; a < p.devices; ++a)
      for (int b = a + 1; b < p.devices; ++b) hccs(a, b);
    break;
  case HccsShape::TwoGroupsOfFour: {
    if (p.devices != 8) throw TopologyError("shape 2x4 needs exactly 8 devices, got " + std::to_string(p.devices));
    checkLink(p.interGroup, "inter-group link");
    for (int grp = 0; grp < 2; ++grp)
      for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) hccs(4 * grp + a, 4 * grp + b);
    Vertex sw0 = addNode(g, NodeKind::ServerSwitch, prefix + "pcie0", server);
    Vertex sw1 = addNode(g, NodeKind::ServerSwitch, prefix + "pcie1", server);
    for (int d = 0; d < 8; ++d) pcie(dev[d], d < 4 ? sw0 : sw1);
    pcie(sw0, sw1);
    break;
  }
  case HccsShape::Switch: {
    Vertex sw = addNode(g, NodeKind::ServerSwitch, prefix + "nvswitch", server);
    g[sw].reduces = p.switchReduces;
    g[sw].reduceEfficiency = p.switchReduceEfficiency;
    for (int d = 0; d < p.devices; ++d) addLink(g, dev[d], sw, p.hccs, LinkTier::ScaleUp, scaleUp);
    break;
  }
  case HccsShape::Custom: {
    // A pair listed k times is joined by k links, bonded as one of k times the
    // bandwidth (DGX-1's NV2 pairs): routing takes one link per pair.
    std::map<std::pair<int, int>, int> bonded;
    for (auto [a, b] : p.customLinks) {
      if (a < 0 || b < 0 || a >= p.devices || b >= p.devices || a == b)
        throw TopologyError("link [" + std::to_string(a) + ", " + std::to_string(b) +
                            "] must join two different devices in 0.." + std::to_string(p.devices - 1));
      ++bonded[std::minmax(a, b)];
    }
    for (auto [pair, k] : bonded) {
      LinkParams l = p.hccs;
      l.bandwidth *= Bandwidth(k);
      addLink(g, dev[pair.first], dev[pair.second], l, LinkTier::ScaleUp, scaleUp);
    }
    break;
  }
  }
  return dev;
}

Cluster exportCluster(Graph&& g, std::string name, int servers, int devicesPerServer, const DeviceModel& device,
                      std::string description) {
  Cluster c;
  c.name = std::move(name);
  c.servers = servers;
  c.devicesPerServer = devicesPerServer;
  c.device = device;
  c.description = std::move(description);
  c.nodes = std::move(g.nodes);
  c.links = std::move(g.links);
  c.tiers = std::move(g.tiers);
  for (std::size_t v = 0; v < c.nodes.size(); ++v)
    if (c.nodes[v].kind == NodeKind::Device) c.rankNode.push_back(int(v));
  return c;
}

} // namespace collsim::graph
