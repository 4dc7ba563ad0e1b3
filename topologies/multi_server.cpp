#include "topologies/multi_server.h"

#include <cmath>
#include <cstdio>

#include "algorithms/core/enum_names.h"
#include "topologies/cluster_graph.h"

namespace collsim {

constexpr std::array<Named<FabricKind>, 4> kFabricKinds = {{{FabricKind::None, "none"},
                                                            {FabricKind::Switch, "switch"},
                                                            {FabricKind::LeafSpine, "leaf-spine"},
                                                            {FabricKind::Rail, "rail"}}};

const char* fabricKindName(FabricKind k) { return nameOf(kFabricKinds, k); }

bool parseFabricKind(const std::string& name, FabricKind& out) { return parseName(kFabricKinds, name, out); }

namespace {

using graph::Graph;
using graph::Vertex;

void validate(const ClusterParams& p) {
  if (p.servers < 1) throw TopologyError("servers must be at least 1, got " + std::to_string(p.servers));
  if (p.server.device.stepOverhead < 0) throw TopologyError("device step overhead must not be negative");
  graph::checkLink(p.nic.roce, "RoCE link");
  if (p.nic.placement == NicPlacement::PerServer) {
    if (p.nic.perServer < 1 || p.nic.perServer > p.server.devices)
      throw TopologyError("NICs per server must be 1.." + std::to_string(p.server.devices) + ", got " +
                          std::to_string(p.nic.perServer));
    graph::checkLink(p.nic.pcie, "PCIe link");
    if (p.nic.pcieShared) graph::checkLink(p.nic.pcieUplink, "PCIe uplink");
    if (p.nic.map == NicMap::List) {
      if (int(p.nic.mapList.size()) != p.server.devices)
        throw TopologyError("the NIC map lists " + std::to_string(p.nic.mapList.size()) + " NIC(s); it needs one per device (" +
                            std::to_string(p.server.devices) + ")");
      for (int n : p.nic.mapList)
        if (n < 0 || n >= p.nic.perServer)
          throw TopologyError("the NIC map names NIC " + std::to_string(n) + "; the NICs are 0.." +
                              std::to_string(p.nic.perServer - 1));
    }
  }
  const FabricParams& f = p.fabric;
  if (f.kind != FabricKind::Switch) {
    if (f.spines < 1) throw TopologyError("spines must be at least 1, got " + std::to_string(f.spines));
    if (!(f.oversubscription > 0)) throw TopologyError("oversubscription must be positive");
    if (f.uplinkLatency < 0) throw TopologyError("uplink latency must not be negative");
  }
  if (f.kind == FabricKind::LeafSpine && f.serversPerLeaf < 1)
    throw TopologyError("servers per leaf must be at least 1, got " + std::to_string(f.serversPerLeaf));
}

// Each leaf gets one uplink to every spine; together they carry the leaf's
// downlink bandwidth divided by the oversubscription ratio.
void addSpines(Graph& g, const std::vector<Vertex>& leaves, const std::vector<int>& downlinks, const ClusterParams& p) {
  std::vector<Vertex> spines;
  for (int s = 0; s < p.fabric.spines; ++s) spines.push_back(graph::addNode(g, NodeKind::Switch, "spine" + std::to_string(s)));
  for (std::size_t l = 0; l < leaves.size(); ++l) {
    double down = double(downlinks[l]) * double(p.nic.roce.bandwidth);
    auto bw = Bandwidth(std::llround(down / (p.fabric.oversubscription * p.fabric.spines)));
    LinkParams up{bw, p.fabric.uplinkLatency};
    graph::checkLink(up, "uplink");
    for (Vertex s : spines) graph::addLink(g, leaves[l], s, up, LinkTier::ScaleOut);
  }
}

// Room for every server, built alike, and the fabric's nodes and links once
// the first server is in g (262,144 devices: 1.2 M links, each table grown
// by doubling took a tenth of the build).
void reserveForServers(Graph& g, const ClusterParams& p, int nicsPerServer) {
  const std::size_t servers = std::size_t(p.servers), nics = std::size_t(nicsPerServer);
  const std::size_t spines = std::size_t(std::max(0, p.fabric.spines));
  std::size_t switches = 1, uplinks = 0;
  if (p.fabric.kind == FabricKind::LeafSpine) {
    switches = (servers + std::size_t(p.fabric.serversPerLeaf) - 1) / std::size_t(p.fabric.serversPerLeaf);
    uplinks = switches * spines, switches += spines;
  } else if (p.fabric.kind == FabricKind::Rail) {
    switches = nics + spines, uplinks = nics * spines;
  }
  g.nodes.reserve(servers * g.nodes.size() + switches);
  g.links.reserve(servers * (g.links.size() + nics) + uplinks);
}

std::string describe(const ClusterParams& p) {
  const ServerParams& s = p.server;
  std::string d = std::to_string(p.servers) + "x" + std::to_string(s.devices) + " devices, " + s.linkName + " " +
                  hccsShapeName(s.shape) + " " + formatBandwidth(s.hccs.bandwidth);
  const std::string& net = p.nic.networkName;
  const bool vowel = !net.empty() && std::string("AEIOUaeiou").find(net[0]) != std::string::npos;
  d += p.nic.placement == NicPlacement::PerDevice ? std::string(vowel ? ", an " : ", a ") + net + " NIC per device"
                                                   : ", " + std::to_string(p.nic.perServer) + " " + net + " NIC(s) per server";
  if (p.nic.placement == NicPlacement::PerServer && p.nic.perServer > 1 && p.nic.map != NicMap::Interleave)
    d += p.nic.map == NicMap::Block ? " (devices in blocks)" : " (devices as listed)";
  if (p.nic.placement == NicPlacement::PerServer && p.nic.pcieShared)
    d += " behind shared PCIe uplinks of " + formatBandwidth(p.nic.pcieUplink.bandwidth);
  d += " at " + formatLineRate(p.nic.roce.bandwidth) + ", " + fabricKindName(p.fabric.kind);
  if (p.fabric.kind != FabricKind::Switch) {
    d += " with " + std::to_string(p.fabric.spines) + " spine(s)";
    if (p.fabric.oversubscription != 1) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, ", %g:1 oversubscribed", p.fabric.oversubscription);
      d += ratio;
    }
  }
  return d;
}

} // namespace

int NicParams::nicOf(int device, int devices) const {
  switch (map) {
  case NicMap::Interleave: return device % perServer;
  case NicMap::Block: return int(std::int64_t(device) * perServer / devices);
  case NicMap::List: return mapList[std::size_t(device)];
  }
  return 0;
}

Cluster buildCluster(const ClusterParams& p) {
  validate(p);
  Graph g;
  const int D = p.server.devices;
  const int nicsPerServer = p.nic.placement == NicPlacement::PerDevice ? D : p.nic.perServer;

  // Servers and their NIC ports (a device itself when it has its own NIC).
  std::vector<std::vector<Vertex>> ports(static_cast<std::size_t>(p.servers));
  for (int s = 0; s < p.servers; ++s) {
    if (s == 1) reserveForServers(g, p, nicsPerServer);
    std::string prefix = p.servers > 1 ? "s" + std::to_string(s) + "." : "";
    std::vector<Vertex> dev = graph::addServer(g, p.server, prefix, s);
    if (p.nic.placement == NicPlacement::PerDevice) {
      ports[s] = dev;
      continue;
    }
    std::vector<Vertex> pcieSwitches; // shared PCIe: one per NIC, made when a device uses it
    for (int n = 0; n < nicsPerServer; ++n) {
      ports[s].push_back(graph::addNode(g, NodeKind::Nic, prefix + "nic" + std::to_string(n), s));
      pcieSwitches.push_back(Vertex(-1));
    }
    for (int d = 0; d < D; ++d) {
      int n = p.nic.nicOf(d, D);
      if (!p.nic.pcieShared) {
        graph::addLink(g, dev[d], ports[s][n], p.nic.pcie, LinkTier::Pcie);
        continue;
      }
      if (pcieSwitches[n] == Vertex(-1)) {
        pcieSwitches[n] = graph::addNode(g, NodeKind::ServerSwitch, prefix + "pciesw" + std::to_string(n), s);
        graph::addLink(g, pcieSwitches[n], ports[s][n], p.nic.pcieUplink, LinkTier::Pcie);
      }
      graph::addLink(g, dev[d], pcieSwitches[n], p.nic.pcie, LinkTier::Pcie);
    }
  }

  switch (p.fabric.kind) {
  case FabricKind::None:
    if (p.servers > 1) throw TopologyError("servers need a fabric between them");
    break;
  case FabricKind::Switch: {
    Vertex sw = graph::addNode(g, NodeKind::Switch, "switch");
    g[sw].reduces = p.fabric.reduces;
    g[sw].reduceEfficiency = p.fabric.reduceEfficiency;
    for (const auto& server : ports)
      for (Vertex port : server) graph::addLink(g, port, sw, p.nic.roce, LinkTier::ScaleOut);
    break;
  }
  case FabricKind::LeafSpine: {
    int leafCount = (p.servers + p.fabric.serversPerLeaf - 1) / p.fabric.serversPerLeaf;
    std::vector<Vertex> leaves;
    std::vector<int> downlinks(static_cast<std::size_t>(leafCount), 0);
    for (int l = 0; l < leafCount; ++l) leaves.push_back(graph::addNode(g, NodeKind::Switch, "leaf" + std::to_string(l)));
    for (int s = 0; s < p.servers; ++s) {
      int l = s / p.fabric.serversPerLeaf;
      for (Vertex port : ports[s]) graph::addLink(g, port, leaves[l], p.nic.roce, LinkTier::ScaleOut);
      downlinks[l] += nicsPerServer;
    }
    if (leafCount > 1) addSpines(g, leaves, downlinks, p);
    break;
  }
  case FabricKind::Rail: {
    std::vector<Vertex> rails;
    for (int k = 0; k < nicsPerServer; ++k) rails.push_back(graph::addNode(g, NodeKind::Switch, "rail" + std::to_string(k)));
    for (int s = 0; s < p.servers; ++s)
      for (int k = 0; k < nicsPerServer; ++k) graph::addLink(g, ports[s][k], rails[k], p.nic.roce, LinkTier::ScaleOut);
    if (nicsPerServer > 1) addSpines(g, rails, std::vector<int>(rails.size(), p.servers), p);
    break;
  }
  }
  graph::checkConnected(g);
  Cluster c = graph::exportCluster(std::move(g), p.name, p.servers, D, p.server.device, describe(p));
  c.hccsShape = p.server.shape;
  c.scaleUpName = p.server.linkName;
  c.scaleOutName = p.nic.networkName;
  c.serverRings = serverRingsOf(p.server);
  c.fabric = p.fabric.kind;
  c.intraServerRoce = p.intraServerRoce;
  return c;
}

} // namespace collsim
