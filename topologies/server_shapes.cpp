#include "topologies/server_shapes.h"

#include "topologies/ring_orders.h"

#include "algorithms/core/enum_names.h"
#include "topologies/cluster_graph.h"

namespace collsim {

constexpr std::array<Named<HccsShape>, 5> kHccsShapes = {{{HccsShape::Ring, "ring"},
                                                           {HccsShape::Mesh, "mesh"},
                                                           {HccsShape::TwoGroupsOfFour, "2x4"},
                                                           {HccsShape::Custom, "links"},
                                                           {HccsShape::Switch, "switch"}}};

const char* hccsShapeName(HccsShape s) { return nameOf(kHccsShapes, s); }

bool parseHccsShape(const std::string& name, HccsShape& out) { return parseName(kHccsShapes, name, out); }

std::vector<std::vector<int>> serverRingsOf(const ServerParams& p) {
  if (p.shape != HccsShape::Custom) return {};
  return ringsAlongLinks(p.devices, p.customLinks, kMaxRingsPerServer);
}

Cluster buildServer(const ServerParams& p) {
  if (p.device.stepOverhead < 0) throw TopologyError("device step overhead must not be negative");
  graph::Graph g;
  g.level(LinkTier::ScaleUp, p.linkName);
  graph::addServer(g, p, "");
  graph::checkConnected(g);
  std::string description = std::to_string(p.devices) + " devices, " + p.linkName + " " + hccsShapeName(p.shape) + ", " +
                            formatBandwidth(p.hccs.bandwidth) + " per direction, " + formatTime(p.hccs.latency);
  Cluster c = graph::exportCluster(std::move(g), p.name, 1, p.devices, p.device, description);
  c.hccsShape = p.shape;
  c.serverRings = serverRingsOf(p);
  return c;
}

} // namespace collsim
