#include "sim/network/topology_figures.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>

#include "sim/network/routing.h"

namespace collsim {
namespace {

bool inServer(const ClusterNode& n) { return n.server >= 0; }

// Hops from the nearest server node, for fabric nodes (0 for server nodes).
std::vector<int> fabricLevels(const Cluster& c, const std::vector<std::vector<std::pair<int, int>>>& adjacent) {
  std::vector<int> level(c.nodes.size(), -1);
  std::deque<int> frontier;
  for (std::size_t n = 0; n < c.nodes.size(); ++n)
    if (inServer(c.nodes[n])) level[n] = 0, frontier.push_back(int(n));
  while (!frontier.empty()) {
    int u = frontier.front();
    frontier.pop_front();
    for (auto [v, link] : adjacent[std::size_t(u)])
      if (level[std::size_t(v)] < 0) level[std::size_t(v)] = level[std::size_t(u)] + 1, frontier.push_back(v);
  }
  return level;
}

// Max flow (Dinic) from every node of servers [0, half) to every node of
// the other servers, each link direction with its bandwidth.
double halvesMaxFlow(const Cluster& c, int half) {
  struct Edge {
    int to;
    double cap;
  };
  const int n = int(c.nodes.size()), source = n, sink = n + 1;
  std::vector<Edge> edges;
  std::vector<std::vector<int>> out(std::size_t(n) + 2);
  auto add = [&](int a, int b, double cap) { // with its reverse edge at index ^ 1
    out[std::size_t(a)].push_back(int(edges.size()));
    edges.push_back({b, cap});
    out[std::size_t(b)].push_back(int(edges.size()));
    edges.push_back({a, 0});
  };
  const double unbounded = std::numeric_limits<double>::infinity();
  for (const ClusterLink& l : c.links) {
    add(l.a, l.b, double(l.params.bandwidth));
    add(l.b, l.a, double(l.params.bandwidth));
  }
  for (int v = 0; v < n; ++v) {
    const ClusterNode& node = c.nodes[std::size_t(v)];
    if (node.kind != NodeKind::Device) continue;
    if (node.server < half) add(source, v, unbounded);
    else add(v, sink, unbounded);
  }
  double flow = 0;
  std::vector<int> depth, next;
  auto levels = [&] {
    depth.assign(std::size_t(n) + 2, -1);
    std::deque<int> q{source};
    depth[std::size_t(source)] = 0;
    while (!q.empty()) {
      int u = q.front();
      q.pop_front();
      for (int e : out[std::size_t(u)])
        if (edges[std::size_t(e)].cap > 0 && depth[std::size_t(edges[std::size_t(e)].to)] < 0) {
          depth[std::size_t(edges[std::size_t(e)].to)] = depth[std::size_t(u)] + 1;
          q.push_back(edges[std::size_t(e)].to);
        }
    }
    return depth[std::size_t(sink)] >= 0;
  };
  // Depth-first augmenting along the level graph; next[] keeps each node's
  // place among its edges between pushes (recursion depth: a path's hops).
  std::function<double(int, double)> push = [&](int u, double limit) -> double {
    if (u == sink) return limit;
    for (int& i = next[std::size_t(u)]; i < int(out[std::size_t(u)].size()); ++i) {
      int e = out[std::size_t(u)][std::size_t(i)];
      Edge& edge = edges[std::size_t(e)];
      if (edge.cap <= 0 || depth[std::size_t(edge.to)] != depth[std::size_t(u)] + 1) continue;
      double pushed = push(edge.to, std::min(limit, edge.cap));
      if (pushed > 0) {
        edge.cap -= pushed;
        edges[std::size_t(e ^ 1)].cap += pushed;
        return pushed;
      }
    }
    return 0;
  };
  while (levels()) {
    next.assign(std::size_t(n) + 2, 0);
    while (double pushed = push(source, unbounded)) flow += pushed;
  }
  return flow;
}

} // namespace

TopologyFigures topologyFigures(const Cluster& c) {
  TopologyFigures f;
  std::vector<std::vector<std::pair<int, int>>> adjacent(c.nodes.size()); // (node, link)
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    adjacent[std::size_t(c.links[i].a)].push_back({c.links[i].b, int(i)});
    adjacent[std::size_t(c.links[i].b)].push_back({c.links[i].a, int(i)});
  }
  std::vector<int> level = fabricLevels(c, adjacent);

  // A device's exit: where the simulator's route to the device of the same
  // place on the next server leaves its server (on a rail fabric, each
  // device's own rail).
  Routing routing(c);
  f.listedServers = std::min(std::max(1, c.servers), kListedServers);
  for (int r = 0; r < c.ranks(); ++r) {
    if (c.nodes[std::size_t(c.rankNode[std::size_t(r)])].server >= f.listedServers) continue;
    DeviceExit d;
    d.rank = r;
    d.node = c.rankNode[std::size_t(r)];
    d.server = c.nodes[std::size_t(d.node)].server;
    if (c.servers > 1) {
      int peer = (r + c.devicesPerServer) % c.ranks();
      Routing::Route route = routing.route(d.node, c.rankNode[std::size_t(peer)]);
      int at = d.node;
      for (std::uint32_t h = 0; h < route.hops; ++h) {
        const ClusterLink& l = c.links[routing.channel(route, h) / 2];
        int next = routing.channel(route, h) % 2 == 0 ? l.b : l.a;
        if (c.nodes[std::size_t(next)].server != d.server) {
          d.exitNode = at, d.exitLink = l;
          if (!d.via.empty()) d.via.pop_back(); // the exit itself
          break;
        }
        d.narrowest = d.narrowest == 0 ? l.params.bandwidth : std::min(d.narrowest, l.params.bandwidth);
        d.via.push_back(next);
        at = next;
      }
    }
    f.devices.push_back(d);
  }

  int top = *std::max_element(level.begin(), level.end());
  for (int t = 1; t <= top; ++t) {
    FabricTier tier{t, 0, 0, 0};
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
      if (level[n] != t || inServer(c.nodes[n])) continue;
      ++tier.switches;
      for (auto [v, link] : adjacent[n]) {
        Bandwidth bw = c.links[std::size_t(link)].params.bandwidth;
        if (level[std::size_t(v)] < t) tier.down += bw;
        else if (level[std::size_t(v)] > t) tier.up += bw;
      }
    }
    if (tier.switches > 0) f.tiers.push_back(tier);
  }
  if (c.servers > 1) f.bisectionBandwidth = halvesMaxFlow(c, c.servers / 2);
  return f;
}

std::vector<RouteHop> routeBetween(const Cluster& c, int a, int b) {
  Routing routing(c);
  Routing::Route route = routing.route(c.rankNode[std::size_t(a)], c.rankNode[std::size_t(b)]);
  std::vector<RouteHop> hops;
  int at = c.rankNode[std::size_t(a)];
  for (std::uint32_t h = 0; h < route.hops; ++h) {
    std::uint32_t channel = routing.channel(route, h);
    const ClusterLink& l = c.links[channel / 2];
    int next = channel % 2 == 0 ? l.b : l.a;
    hops.push_back({at, next, l});
    at = next;
  }
  return hops;
}

} // namespace collsim
