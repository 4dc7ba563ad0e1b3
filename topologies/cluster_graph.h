// The Boost.Graph form of a cluster, shared by the builders (included only
// by builder .cpp files, to keep Boost out of every other translation unit).
#pragma once

// GCC 12 reports a false -Wuninitialized inside Boost.Graph's named_graph
// (boost::optional) when inlining add_vertex; it is not in our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#pragma GCC diagnostic pop

#include <string>
#include <vector>

#include "topologies/server_shapes.h"

namespace collsim::graph {

struct VertexProps {
  NodeKind kind;
  std::string name;
  int server = -1;
  bool reduces = false;
  double reduceEfficiency = 1;
};
struct EdgeProps {
  LinkParams params;
  std::string type;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;
using Vertex = Graph::vertex_descriptor;

// Throws TopologyError unless bandwidth > 0 and latency >= 0.
void checkLink(const LinkParams& l, const std::string& what);
// Throws TopologyError if some node cannot reach another.
void checkConnected(const Graph& g);

Vertex addNode(Graph& g, NodeKind kind, const std::string& name, int server = -1);
void addLink(Graph& g, Vertex a, Vertex b, const LinkParams& params, const std::string& type);

// Adds one server's devices and HCCS links (and PCIe switches for 2x4);
// returns its devices in local order. Names are prefixed with `prefix`.
std::vector<Vertex> addServer(Graph& g, const ServerParams& p, const std::string& prefix, int server = 0);

// Devices are ranks in the order they were added.
Cluster exportCluster(const Graph& g, std::string name, int servers, int devicesPerServer, const DeviceModel& device,
                      std::string description);

} // namespace collsim::graph
