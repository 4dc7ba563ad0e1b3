#include "topologies/server_shapes.h"

// GCC 12 reports a false -Wuninitialized inside Boost.Graph's named_graph
// (boost::optional) when inlining add_vertex; it is not in our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#pragma GCC diagnostic pop

namespace collsim {
namespace {

struct VertexProps {
  NodeKind kind;
  std::string name;
};
struct EdgeProps {
  LinkParams params;
  std::string type;
};
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;

void checkLink(const LinkParams& l, const char* what) {
  if (l.bandwidth == 0) throw TopologyError(std::string(what) + " bandwidth must be positive");
  if (l.latency < 0) throw TopologyError(std::string(what) + " latency must not be negative");
}

// Every device must reach every other one.
void checkConnected(const Graph& g) {
  std::vector<int> component(boost::num_vertices(g));
  int n = boost::connected_components(g, component.data());
  if (n > 1) throw TopologyError("topology is disconnected: " + std::to_string(n) + " separate parts");
}

Cluster exportCluster(const Graph& g, const ServerParams& p, const std::string& description) {
  Cluster c;
  c.name = p.name;
  c.devicesPerServer = p.devices;
  c.device = p.device;
  c.description = description;
  for (auto v : boost::make_iterator_range(boost::vertices(g))) {
    c.nodes.push_back({g[v].kind, g[v].name});
    if (g[v].kind == NodeKind::Device) c.rankNode.push_back(int(v));
  }
  for (auto e : boost::make_iterator_range(boost::edges(g)))
    c.links.push_back({int(boost::source(e, g)), int(boost::target(e, g)), g[e].params, g[e].type});
  return c;
}

} // namespace

const char* hccsShapeName(HccsShape s) {
  switch (s) {
  case HccsShape::Ring: return "ring";
  case HccsShape::Mesh: return "mesh";
  case HccsShape::TwoGroupsOfFour: return "2x4";
  case HccsShape::Custom: return "links";
  }
  return "?";
}

bool parseHccsShape(const std::string& name, HccsShape& out) {
  for (HccsShape s : {HccsShape::Ring, HccsShape::Mesh, HccsShape::TwoGroupsOfFour, HccsShape::Custom}) {
    if (name == hccsShapeName(s)) {
      out = s;
      return true;
    }
  }
  return false;
}

Cluster buildServer(const ServerParams& p) {
  if (p.devices < 1) throw TopologyError("a server needs at least one device, got " + std::to_string(p.devices));
  if (p.devices > 1) checkLink(p.hccs, "HCCS link");
  if (p.device.stepOverhead < 0) throw TopologyError("device step overhead must not be negative");

  Graph g;
  for (int d = 0; d < p.devices; ++d) boost::add_vertex(VertexProps{NodeKind::Device, "dev" + std::to_string(d)}, g);
  auto hccs = [&](int a, int b) { boost::add_edge(a, b, EdgeProps{p.hccs, "hccs"}, g); };

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
    if (p.devices != 8)
      throw TopologyError("shape 2x4 needs exactly 8 devices, got " + std::to_string(p.devices));
    checkLink(p.interGroup, "inter-group link");
    for (int grp = 0; grp < 2; ++grp)
      for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) hccs(4 * grp + a, 4 * grp + b);
    auto sw0 = boost::add_vertex(VertexProps{NodeKind::Switch, "pcie0"}, g);
    auto sw1 = boost::add_vertex(VertexProps{NodeKind::Switch, "pcie1"}, g);
    for (int d = 0; d < 8; ++d) boost::add_edge(d, d < 4 ? sw0 : sw1, EdgeProps{p.interGroup, "pcie"}, g);
    boost::add_edge(sw0, sw1, EdgeProps{p.interGroup, "pcie"}, g);
    break;
  }
  case HccsShape::Custom:
    for (auto [a, b] : p.customLinks) {
      if (a < 0 || b < 0 || a >= p.devices || b >= p.devices || a == b)
        throw TopologyError("link [" + std::to_string(a) + ", " + std::to_string(b) +
                            "] must join two different devices in 0.." + std::to_string(p.devices - 1));
      hccs(a, b);
    }
    break;
  }
  checkConnected(g);
  std::string description = std::to_string(p.devices) + " devices, HCCS " + hccsShapeName(p.shape) + ", " +
                            formatBandwidth(p.hccs.bandwidth) + " per direction, " + formatTime(p.hccs.latency);
  return exportCluster(g, p, description);
}

} // namespace collsim
