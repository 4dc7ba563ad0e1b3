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

// Refused before anything is built: a tier of 65,536 switches per group
// over 262,144 switches below would be 1.7e10 links. Counts the links of
// each tier from its groups (an upper bound: a group over one switch adds none).
void checkFabricSize(const ClusterParams& p) {
  constexpr double kMaxFabricLinks = 1 << 24;
  const double nics = p.nic.placement == NicPlacement::PerDevice ? p.server.devices : p.nic.perServer;
  double links = double(p.servers) * nics, groups = 0, switchesPerGroup = 0;
  for (std::size_t k = 0; k < p.tiers.size(); ++k) {
    const SwitchTier& t = p.tiers[k];
    if (k == 0) {
      groups = std::ceil(double(p.servers) / (t.size ? t.size : p.servers));
      switchesPerGroup = t.shape == SwitchShape::Rail ? nics : 1;
      continue;
    }
    links += groups * switchesPerGroup * t.switches; // every switch below, to each of its group's
    groups = std::ceil(groups / (t.size ? t.size : groups));
    switchesPerGroup = t.switches;
  }
  if (links > kMaxFabricLinks)
    throw TopologyError("the fabric would have " + std::to_string(static_cast<long long>(links)) +
                        " links; collsim builds at most " + std::to_string(static_cast<long long>(kMaxFabricLinks)) +
                        " (fewer switches per group, or larger groups)");
}

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
  const std::vector<SwitchTier>& tiers = p.tiers;
  for (std::size_t k = 0; k < tiers.size(); ++k) {
    const SwitchTier& t = tiers[k];
    const std::string tier = "tier " + std::to_string(k + 1) + " (" + t.name + ")";
    if (t.size < 0) throw TopologyError(tier + ": size must be at least 1, got " + std::to_string(t.size));
    if (t.switches < 1) throw TopologyError(tier + ": switches must be at least 1, got " + std::to_string(t.switches));
    if (!(t.oversubscription > 0)) throw TopologyError(tier + ": oversubscription must be positive");
    if (t.link.latency < 0) throw TopologyError(tier + ": latency must not be negative");
    if (k > 0 && t.shape == SwitchShape::Rail) throw TopologyError(tier + ": rails join NIC ports; only tier 1 can be a rail tier");
    if (k == 0 && t.switches != 1) throw TopologyError(tier + ": a NIC port joins one switch; tier 1 has one switch per group");
    if (t.reduces && (k > 0 || t.shape != SwitchShape::Switch || (t.size != 0 && t.size < p.servers)))
      throw TopologyError(tier + ": only a single switch over every server reduces (SHARP across tiers is a tree collsim does not model)");
  }
  if (!tiers.empty()) graph::checkLink(tiers.front().link, tiers.front().name + " link");
  checkFabricSize(p);
}

// The switches of one tier, group by group, and what each carries down:
// the sum of its downlinks' bandwidth, which sizes its links up.
struct TierSwitches {
  std::vector<std::vector<Vertex>> groups;
  std::vector<double> down; // per switch, in the order of `groups` flattened
};

std::string switchName(const SwitchTier& t, std::size_t index) {
  return t.numbered ? t.switchName + std::to_string(index) : t.switchName;
}

// Tier 1: the servers' NIC ports on their group's switch (or rails).
TierSwitches addFirstTier(Graph& g, const SwitchTier& t, const std::vector<std::vector<Vertex>>& ports, std::uint8_t level) {
  const std::size_t servers = ports.size(), nics = ports.front().size();
  const std::size_t size = t.size == 0 ? servers : std::size_t(t.size);
  const std::size_t perGroup = t.shape == SwitchShape::Rail ? nics : 1;
  TierSwitches out;
  for (std::size_t first = 0; first < servers; first += size) {
    std::vector<Vertex> group;
    for (std::size_t k = 0; k < perGroup; ++k) {
      group.push_back(graph::addNode(g, NodeKind::Switch, switchName(t, out.down.size())));
      g[group.back()].reduces = t.reduces;
      g[group.back()].reduceEfficiency = t.reduceEfficiency;
      out.down.push_back(0);
    }
    for (std::size_t s = first; s < std::min(servers, first + size); ++s)
      for (std::size_t n = 0; n < nics; ++n) {
        std::size_t k = t.shape == SwitchShape::Rail ? n : 0;
        graph::addLink(g, ports[s][n], group[k], t.link, LinkTier::ScaleOut, level);
        out.down[out.down.size() - perGroup + k] += double(t.link.bandwidth);
      }
    out.groups.push_back(std::move(group));
  }
  return out;
}

// Tier k > 1: `switches` per group, each linked to every switch of the
// group's groups below. A group over a single switch keeps that switch.
TierSwitches addUpperTier(Graph& g, const SwitchTier& t, const TierSwitches& below, std::uint8_t level) {
  const std::size_t size = t.size == 0 ? below.groups.size() : std::size_t(t.size);
  TierSwitches out;
  std::size_t made = 0;       // this tier's switches so far
  std::size_t belowIndex = 0; // of the first switch of the next group below
  for (std::size_t first = 0; first < below.groups.size(); first += size) {
    std::vector<std::pair<Vertex, double>> members; // the switches below and what they carry down
    for (std::size_t b = first; b < std::min(below.groups.size(), first + size); ++b)
      for (Vertex v : below.groups[b]) members.emplace_back(v, below.down[belowIndex++]);
    if (members.size() == 1) {
      out.groups.push_back({members.front().first});
      out.down.push_back(members.front().second);
      continue;
    }
    std::vector<Vertex> group;
    for (int k = 0; k < t.switches; ++k) group.push_back(graph::addNode(g, NodeKind::Switch, switchName(t, made++)));
    double each = 0; // what each switch of the group carries down: one link from every member
    for (auto [v, down] : members) {
      LinkParams up = t.link;
      if (up.bandwidth == 0) up.bandwidth = Bandwidth(std::llround(down / (t.oversubscription * t.switches)));
      graph::checkLink(up, t.name + " uplink");
      for (Vertex s : group) graph::addLink(g, v, s, up, LinkTier::ScaleOut, level);
      each += double(up.bandwidth);
    }
    out.down.insert(out.down.end(), group.size(), each);
    out.groups.push_back(std::move(group));
  }
  return out;
}

// Room for every server, built alike, and the fabric's links once the first
// server is in g (262,144 devices: 1.2 M links, each table grown by doubling
// took a tenth of the build). The upper tiers are few: they grow as needed.
void reserveForServers(Graph& g, const ClusterParams& p, int nicsPerServer) {
  const std::size_t servers = std::size_t(p.servers), nics = std::size_t(nicsPerServer);
  g.nodes.reserve(servers * g.nodes.size() + servers);
  g.links.reserve(servers * (g.links.size() + nics) + servers);
}

// "; rail: 16 rail switches, 4 servers a group; spine: 2 switches, 2:1 oversubscribed"
std::string describeTiers(const std::vector<SwitchTier>& tiers, const std::vector<int>& switchesPerTier) {
  std::string d;
  for (std::size_t k = 0; k < tiers.size(); ++k) {
    const SwitchTier& t = tiers[k];
    const int n = switchesPerTier[k];
    d += "; " + t.name + ": " + std::to_string(n) + (t.shape == SwitchShape::Rail ? " rail" : "") + (n == 1 ? " switch" : " switches");
    if (t.size != 0) d += ", " + std::to_string(t.size) + (k == 0 ? " servers" : " groups below") + " a group";
    if (t.link.bandwidth == 0 && t.oversubscription != 1) {
      char ratio[32];
      std::snprintf(ratio, sizeof ratio, ", %g:1 oversubscribed", t.oversubscription);
      d += ratio;
    }
  }
  return d;
}

// `p` as given: the two-tier spelling is described as before.
std::string describe(const ClusterParams& p, const std::vector<int>& switchesPerTier) {
  const ServerParams& s = p.server;
  std::string d = std::to_string(p.servers) + "x" + std::to_string(s.devices) + " devices, " + s.linkName + " " +
                  hccsShapeName(s.shape) + " " + formatBandwidth(s.hccs.bandwidth);
  const std::string net = p.tiers.empty() ? p.nic.networkName : "scale-out";
  const bool vowel = !net.empty() && std::string("AEIOUaeiou").find(net[0]) != std::string::npos;
  d += p.nic.placement == NicPlacement::PerDevice ? std::string(vowel ? ", an " : ", a ") + net + " NIC per device"
                                                   : ", " + std::to_string(p.nic.perServer) + " " + net + " NIC(s) per server";
  if (p.nic.placement == NicPlacement::PerServer && p.nic.perServer > 1 && p.nic.map != NicMap::Interleave)
    d += p.nic.map == NicMap::Block ? " (devices in blocks)" : " (devices as listed)";
  if (p.nic.placement == NicPlacement::PerServer && p.nic.pcieShared)
    d += " behind shared PCIe uplinks of " + formatBandwidth(p.nic.pcieUplink.bandwidth);
  d += " at " + formatLineRate(p.nic.roce.bandwidth);
  if (!p.tiers.empty()) return d + describeTiers(p.tiers, switchesPerTier);
  d += std::string(", ") + fabricKindName(p.fabric.kind);
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

// What the selector's rules call the fabric: one switch, rails, or switches
// over switches (leaf-spine, and every deeper tree).
FabricKind fabricKindOf(const std::vector<SwitchTier>& tiers) {
  if (tiers.empty()) return FabricKind::None;
  if (tiers.front().shape == SwitchShape::Rail) return FabricKind::Rail;
  return tiers.size() == 1 && tiers.front().size == 0 ? FabricKind::Switch : FabricKind::LeafSpine;
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

std::vector<SwitchTier> switchTiersOf(const ClusterParams& p) {
  const FabricParams& f = p.fabric;
  if (f.kind == FabricKind::None) return {};
  SwitchTier first{p.nic.networkName, "switch", false, SwitchShape::Switch, 0, 1, p.nic.roce, 1, f.reduces, f.reduceEfficiency};
  if (f.kind == FabricKind::Switch) return {first};
  if (f.spines < 1) throw TopologyError("spines must be at least 1, got " + std::to_string(f.spines));
  if (!(f.oversubscription > 0)) throw TopologyError("oversubscription must be positive");
  if (f.uplinkLatency < 0) throw TopologyError("uplink latency must not be negative");
  if (f.kind == FabricKind::LeafSpine && f.serversPerLeaf < 1)
    throw TopologyError("servers per leaf must be at least 1, got " + std::to_string(f.serversPerLeaf));
  first.switchName = f.kind == FabricKind::Rail ? "rail" : "leaf";
  first.numbered = true;
  first.shape = f.kind == FabricKind::Rail ? SwitchShape::Rail : SwitchShape::Switch;
  first.size = f.kind == FabricKind::Rail ? 0 : f.serversPerLeaf;
  SwitchTier spines{p.nic.networkName, "spine", true, SwitchShape::Switch, 0, f.spines, {0, f.uplinkLatency}, f.oversubscription};
  return {first, spines};
}

Cluster buildCluster(const ClusterParams& given) {
  ClusterParams p = given;
  if (p.tiers.empty()) p.tiers = switchTiersOf(p);
  validate(p);
  Graph g;
  // Levels bottom up: scale-up, the switch tiers (alike names share one), PCIe.
  std::vector<std::uint8_t> levels{g.level(LinkTier::ScaleUp, p.server.linkName)};
  for (const SwitchTier& t : p.tiers) levels.push_back(g.level(LinkTier::ScaleOut, t.name));
  const std::uint8_t pcie = g.level(LinkTier::Pcie, graph::kPcieTierName);
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
        graph::addLink(g, dev[d], ports[s][n], p.nic.pcie, LinkTier::Pcie, pcie);
        continue;
      }
      if (pcieSwitches[n] == Vertex(-1)) {
        pcieSwitches[n] = graph::addNode(g, NodeKind::ServerSwitch, prefix + "pciesw" + std::to_string(n), s);
        graph::addLink(g, pcieSwitches[n], ports[s][n], p.nic.pcieUplink, LinkTier::Pcie, pcie);
      }
      graph::addLink(g, dev[d], pcieSwitches[n], p.nic.pcie, LinkTier::Pcie, pcie);
    }
  }

  std::vector<int> switchesPerTier;
  if (p.servers > 1 && p.tiers.empty()) throw TopologyError("servers need a fabric between them");
  if (!p.tiers.empty()) {
    const std::size_t before = g.nodes.size();
    TierSwitches tier = addFirstTier(g, p.tiers[0], ports, levels[1]);
    switchesPerTier.push_back(int(g.nodes.size() - before));
    for (std::size_t k = 1; k < p.tiers.size(); ++k) {
      const std::size_t made = g.nodes.size();
      tier = addUpperTier(g, p.tiers[k], tier, levels[k + 1]);
      switchesPerTier.push_back(int(g.nodes.size() - made));
    }
  }
  graph::checkConnected(g);
  Cluster c = graph::exportCluster(std::move(g), p.name, p.servers, D, p.server.device, describe(given, switchesPerTier));
  c.hccsShape = p.server.shape;
  c.serverRings = serverRingsOf(p.server);
  c.fabric = fabricKindOf(p.tiers);
  c.intraServerRoce = p.intraServerRoce;
  return c;
}

} // namespace collsim
