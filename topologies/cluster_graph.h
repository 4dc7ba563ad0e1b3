// A cluster as the builders make it: its node and link tables, filled in
// place (a 262,144-device cluster has 1.2 M links: a graph library's own
// copy of them, with a name and a kind each, took half the build).
// Boost.Graph checks that it is connected.
#pragma once

#include <string>
#include <vector>

#include "topologies/server_shapes.h"

namespace collsim::graph {

struct Graph {
  std::vector<ClusterNode> nodes;
  std::vector<ClusterLink> links;
  std::vector<ClusterTier> tiers;
  ClusterNode& operator[](int node) { return nodes[std::size_t(node)]; }
  // The level of the tier of this kind and name, added on first use: tiers
  // named alike are one tier in outputs. Builders name theirs bottom up
  // before adding links, so levels run from the devices up.
  std::uint8_t level(LinkTier kind, const std::string& name);
};
using Vertex = int;

// Throws TopologyError unless bandwidth > 0 and latency >= 0.
void checkLink(const LinkParams& l, const std::string& what);
// Throws TopologyError if some node cannot reach another.
void checkConnected(const Graph& g);

Vertex addNode(Graph& g, NodeKind kind, const std::string& name, int server = -1);
void addLink(Graph& g, Vertex a, Vertex b, const LinkParams& params, LinkTier tier, std::uint8_t level);

// Adds one server's devices and HCCS links (and PCIe switches for 2x4);
// returns its devices in local order. Names are prefixed with `prefix`.
// Its links' tiers are p.linkName's (scale-up) and "PCIe".
std::vector<Vertex> addServer(Graph& g, const ServerParams& p, const std::string& prefix, int server = 0);

// The name of the PCIe tier in every cluster.
inline constexpr const char* kPcieTierName = "PCIe";

// Devices are ranks in the order they were added. Takes g's tables.
Cluster exportCluster(Graph&& g, std::string name, int servers, int devicesPerServer, const DeviceModel& device,
                      std::string description);

} // namespace collsim::graph
