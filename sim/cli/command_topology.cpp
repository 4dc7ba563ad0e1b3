// collsim topology CLUSTER: the cluster as built, to inspect before a study:
// its links by kind, where each device leaves its server, the fabric's
// tiers with their oversubscription, the bandwidth across the middle, and
// (--route A B) the path between two ranks. Table, JSON or Graphviz dot.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <map>
#include <sstream>
#include <utility>

#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/report/provenance.h"
#include "sim/report/text_table.h"
#include "sim/config/cluster_config.h"
#include "sim/network/topology_figures.h"

namespace collsim {
namespace {

struct TopologyOptions {
  std::string cluster, out;
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets;
  std::vector<int> route;
  WorkLimitOptions limits;
};

// What showing a cluster costs, as every other command's work is estimated
// before it starts: the cluster as built plus every node and link formatted
// once (the JSON first as a document, ten times the text it prints).
// Measured on 32,768 Atlas servers (262,145 nodes and 524,288 links, the
// largest cluster collsim builds): the table 230 MB and 1.1 s, dot 199 MB
// and 1.5 s, JSON 1.19 GB and 7.6 s; the same per item on a leaf-spine.
WorkEstimate estimateTopology(const Cluster& c, OutputFormat format) {
  struct PerItem { double bytes, seconds; };
  const PerItem cost = format == OutputFormat::Json ? PerItem{1520, 9.6e-6} : format == OutputFormat::Dot ? PerItem{250, 1.9e-6} : PerItem{290, 1.4e-6};
  const double items = double(c.nodes.size() + c.links.size());
  WorkEstimate e;
  e.memoryBytes = 8.0 * (1 << 20) + items * cost.bytes;
  e.wallSeconds = items * cost.seconds;
  return e;
}

const char* nodeKindName(NodeKind k) {
  switch (k) {
  case NodeKind::Device: return "device";
  case NodeKind::Switch: return "switch";
  case NodeKind::Nic: return "nic";
  case NodeKind::ServerSwitch: return "server-switch";
  }
  return "?";
}

// Scale-out links in bits per second, as NICs are sold; the others in bytes.
std::string linkRate(LinkTier tier, Bandwidth bw) { return tier == LinkTier::ScaleOut ? formatLineRate(bw) : formatBandwidth(bw); }

std::string gigabytesPerSecond(double bytesPerSecond) { return fixed(bytesPerSecond / 1e9, 1) + " GB/s"; }

std::string linkRate(const ClusterLink& l) { return linkRate(l.tier, l.params.bandwidth); }

// Links grouped by (tier, bandwidth, latency): one of them and how many.
struct LinkGroup {
  ClusterLink link;
  int count = 0;
};
std::vector<LinkGroup> linkGroups(const Cluster& c) {
  std::vector<LinkGroup> groups;
  for (const ClusterLink& l : c.links) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const LinkGroup& g) {
      return g.link.level == l.level && g.link.params.bandwidth == l.params.bandwidth && g.link.params.latency == l.params.latency;
    });
    if (it == groups.end()) groups.push_back({l, 1});
    else ++it->count;
  }
  return groups;
}

std::string topologyTable(const Cluster& c, const TopologyFigures& f, const std::vector<RouteHop>& route) {
  std::ostringstream os;
  std::map<std::string, int> kinds;
  for (const auto& n : c.nodes) ++kinds[nodeKindName(n.kind)];
  os << "# cluster: " << c.name << " (" << c.description << ")\n# nodes:";
  bool first = true;
  for (const auto& [kind, count] : kinds)
    os << (std::exchange(first, false) ? " " : ", ") << count << " " << kind << (count == 1 ? "" : kind.size() > 2 && kind.substr(kind.size() - 2) == "ch" ? "es" : "s");
  os << "; " << c.links.size() << " links (full duplex; bandwidth per direction)\n";
  // Switches that reduce and multicast (NVLS, SHARP), one line for all alike.
  std::map<double, int> reducing;
  for (const auto& n : c.nodes)
    if (n.reduces) ++reducing[n.reduceEfficiency];
  for (const auto& [efficiency, count] : reducing) {
    os << "# " << count << (count == 1 ? " switch reduces and multicasts" : " switches reduce and multicast")
       << " (in-network algorithms), at ";
    if (efficiency < 1) os << efficiency << " of the";
    else os << "the full";
    os << " rate of " << (count == 1 ? "its" : "their") << " ports\n";
  }
  TextTable links({"link", "count", "bandwidth", "latency"});
  for (const auto& g : linkGroups(c))
    links.add({c.tierName(g.link), std::to_string(g.count), linkRate(g.link), formatTime(g.link.params.latency)});
  os << links.text();
  if (!f.tiers.empty()) {
    os << "\n# fabric tiers (1 = next to the servers): capacity down and up, summed per direction\n";
    TextTable tiers({"tier", "switches", "down", "up", "oversubscription"});
    for (const auto& t : f.tiers)
      tiers.add({std::to_string(t.tier), std::to_string(t.switches), gigabytesPerSecond(double(t.down)),
                 t.up > 0 ? gigabytesPerSecond(double(t.up)) : "-", t.up > 0 ? fixed(t.oversubscription(), 2) + ":1" : "-"});
    os << tiers.text();
    auto servers = [](int a, int b) {
      return a == b ? "server " + std::to_string(a) : "servers " + std::to_string(a) + "-" + std::to_string(b);
    };
    os << "# bisection: " << servers(0, c.servers / 2 - 1) << " to " << servers(c.servers / 2, c.servers - 1) << " at most "
       << gigabytesPerSecond(f.bisectionBandwidth) << " (max flow over the links)\n";
  }
  os << "\n# devices and where they leave their server";
  if (f.listedServers < c.servers)
    os << " (servers 0-" << f.listedServers - 1 << " of " << c.servers << "; the others are built alike)";
  os << "\n";
  // How many devices leave through each exit (they share it), and the way
  // there inside the server (PCIe: its narrowest link, its switches).
  std::map<int, int> sharing;
  for (const auto& d : f.devices) ++sharing[d.exitNode];
  TextTable devices({"rank", "node", "server", "leaves through", "link", "bandwidth", "devices on it", "via", "way there"});
  for (const auto& d : f.devices) {
    std::string via;
    for (int n : d.via) via += (via.empty() ? "" : " > ") + c.nodes[std::size_t(n)].name;
    bool own = d.exitNode == d.node;
    devices.add({std::to_string(d.rank), c.nodes[std::size_t(d.node)].name, std::to_string(d.server),
                 d.exitNode < 0 ? "-" : own ? "its own port" : c.nodes[std::size_t(d.exitNode)].name,
                 d.exitNode < 0 ? "-" : c.tierName(d.exitLink), d.exitNode < 0 ? "-" : linkRate(d.exitLink),
                 d.exitNode < 0 ? "-" : std::to_string(sharing[d.exitNode]), via.empty() ? "-" : via,
                 d.exitNode < 0 || own ? "-" : formatBandwidth(d.narrowest)});
  }
  os << devices.text();
  if (!route.empty()) {
    os << "\n# route (the path the simulator takes; among equal-cost paths, a hash of source and destination picks)\n";
    TextTable hops({"hop", "from", "to", "link", "bandwidth", "latency"});
    for (std::size_t h = 0; h < route.size(); ++h)
      hops.add({std::to_string(h + 1), c.nodes[std::size_t(route[h].from)].name, c.nodes[std::size_t(route[h].to)].name,
                c.tierName(route[h].link), linkRate(route[h].link), formatTime(route[h].link.params.latency)});
    os << hops.text();
  }
  return os.str();
}

std::vector<std::string> viaNames(const Cluster& c, const DeviceExit& d) {
  std::vector<std::string> names;
  for (int n : d.via) names.push_back(c.nodes[std::size_t(n)].name);
  return names;
}

nlohmann::ordered_json topologyJson(const Cluster& c, const TopologyFigures& f, const std::vector<RouteHop>& route,
                            bool routed) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array(), links = nlohmann::ordered_json::array(),
                         devices = nlohmann::ordered_json::array(), tiers = nlohmann::ordered_json::array();
  for (const auto& n : c.nodes)
    nodes.push_back({{"name", n.name},
                     {"kind", nodeKindName(n.kind)},
                     {"server", n.server},
                     {"reduces", n.reduces},
                     {"reduce_efficiency", n.reduces ? nlohmann::ordered_json(n.reduceEfficiency) : nullptr}});
  for (const auto& l : c.links)
    links.push_back({{"a", c.nodes[std::size_t(l.a)].name}, {"b", c.nodes[std::size_t(l.b)].name}, {"tier", tierKey(l.tier)}, {"name", c.tierName(l)},
                     {"bandwidth_Bps", l.params.bandwidth}, {"latency_us", toMicroseconds(l.params.latency)}});
  for (const auto& d : f.devices)
    devices.push_back({{"rank", d.rank}, {"node", c.nodes[std::size_t(d.node)].name}, {"server", d.server},
                       {"exit", d.exitNode < 0 ? "" : c.nodes[std::size_t(d.exitNode)].name},
                       {"exit_tier", d.exitNode < 0 ? "" : tierKey(d.exitLink.tier)}, {"exit_link", d.exitNode < 0 ? "" : c.tierName(d.exitLink)},
                       {"exit_bandwidth_Bps", d.exitLink.params.bandwidth},
                       {"via", viaNames(c, d)}, {"way_there_Bps", d.narrowest}});
  for (const auto& t : f.tiers)
    tiers.push_back({{"tier", t.tier}, {"switches", t.switches}, {"down_Bps", t.down}, {"up_Bps", t.up},
                     {"oversubscription", t.oversubscription()}});
  nlohmann::ordered_json doc = {{"cluster", c.name},   {"description", c.description}, {"servers", c.servers},
                                {"devices_per_server", c.devicesPerServer},         {"nodes", nodes},
                                {"links", links},      {"devices", devices},         {"tiers", tiers},
                                {"bisection_Bps", f.bisectionBandwidth}};
  if (f.listedServers < c.servers) doc["devices_of_servers"] = f.listedServers; // the first ones, listed
  if (routed) {
    nlohmann::ordered_json hops = nlohmann::ordered_json::array();
    for (const auto& h : route)
      hops.push_back({{"from", c.nodes[std::size_t(h.from)].name}, {"to", c.nodes[std::size_t(h.to)].name},
                      {"tier", tierKey(h.link.tier)}, {"name", c.tierName(h.link)}, {"bandwidth_Bps", h.link.params.bandwidth},
                      {"latency_us", toMicroseconds(h.link.params.latency)}});
    doc["route"] = hops;
  }
  return doc;
}

// Graphviz: a box per server, links labelled with their type and rate.
std::string topologyDot(const Cluster& c) {
  std::ostringstream os;
  auto id = [&](int n) { return "\"" + c.nodes[std::size_t(n)].name + "\""; };
  os << "graph \"" << c.name << "\" {\n  node [shape=box, fontsize=10];\n  edge [fontsize=8];\n";
  // Each server's nodes, gathered in one pass (a pass per server was
  // quadratic: 32,768 servers took 9 s).
  std::vector<std::vector<int>> byServer(std::size_t(std::max(c.servers, 0)));
  for (std::size_t n = 0; n < c.nodes.size(); ++n)
    if (c.nodes[n].server >= 0 && c.nodes[n].server < c.servers) byServer[std::size_t(c.nodes[n].server)].push_back(int(n));
  for (int s = 0; s < c.servers; ++s) {
    os << "  subgraph cluster_server" << s << " {\n    label=\"server " << s << "\";\n";
    for (int n : byServer[std::size_t(s)])
      os << "    " << id(n) << (c.nodes[std::size_t(n)].kind == NodeKind::Device ? "" : " [shape=ellipse]") << ";\n";
    os << "  }\n";
  }
  for (std::size_t n = 0; n < c.nodes.size(); ++n)
    if (c.nodes[n].server < 0) os << "  " << id(int(n)) << " [shape=diamond];\n";
  for (const auto& l : c.links)
    os << "  " << id(l.a) << " -- " << id(l.b) << " [label=\"" << c.tierName(l) << " " << linkRate(l)
       << "\"];\n";
  os << "}\n";
  return os.str();
}

int topology(const TopologyOptions& o, CliStreams io) {
  if (o.cluster.empty()) throw UsageError("topology: which cluster? collsim topology --cluster FILE");
  ClusterSetup setup = loadClusterFile(o.cluster, o.sets);
  const Cluster& c = setup.cluster;
  if (!checkWork(o.limits, 1, "topology of " + c.name, io, [&](const WorkLimits*) { return estimateTopology(c, o.format); }))
    return 0;
  if (o.format == OutputFormat::Dot) {
    io.out << withProvenance(topologyDot(c), o.format, io.commandLine, setup.resolvedYaml);
    return 0;
  }
  std::vector<RouteHop> route;
  if (!o.route.empty()) {
    for (int r : o.route)
      if (r < 0 || r >= c.ranks())
        throw UsageError("--route: no rank " + std::to_string(r) + " (the cluster has ranks 0-" +
                         std::to_string(c.ranks() - 1) + ")");
    route = routeBetween(c, o.route[0], o.route[1]);
  }
  TopologyFigures f = topologyFigures(c);
  std::string text = o.format == OutputFormat::Json ? topologyJson(c, f, route, !o.route.empty()).dump(2) + "\n" : topologyTable(c, f, route);
  io.out << withProvenance(text, o.format, io.commandLine, setup.resolvedYaml);
  return 0;
}

} // namespace

Command addTopologyCommand(CLI::App& app) {
  auto o = std::make_shared<TopologyOptions>();
  auto* cmd = app.add_subcommand("topology", "show a cluster as built: links, device exits, fabric tiers, routes");
  // The cluster as --cluster, as every other command takes it, or as the argument.
  auto* positional = cmd->add_option("cluster", o->cluster, "cluster YAML file");
  cmd->add_option("--cluster", o->cluster, "cluster YAML file (or as the argument)")->excludes(positional);
  addFormatOption(cmd, o->format, kGraphFormats);
  addOutOption(cmd, o->out);
  cmd->add_option("--set", o->sets, "override a cluster key: --set servers=8 (repeatable)");
  cmd->add_option("--route", o->route, "the path between two ranks: --route 0 9")->expected(2);
  addWorkLimitOptions(cmd, o->limits);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return topology(*o, to); }); }};
}

} // namespace collsim
