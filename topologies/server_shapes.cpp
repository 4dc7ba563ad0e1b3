#include "topologies/server_shapes.h"

#include "topologies/cluster_graph.h"

namespace collsim {

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
  if (p.device.stepOverhead < 0) throw TopologyError("device step overhead must not be negative");
  graph::Graph g;
  graph::addServer(g, p, "");
  graph::checkConnected(g);
  std::string description = std::to_string(p.devices) + " devices, HCCS " + hccsShapeName(p.shape) + ", " +
                            formatBandwidth(p.hccs.bandwidth) + " per direction, " + formatTime(p.hccs.latency);
  Cluster c = graph::exportCluster(g, p.name, 1, p.devices, p.device, description);
  c.hccsShape = hccsShapeName(p.shape);
  return c;
}

} // namespace collsim
