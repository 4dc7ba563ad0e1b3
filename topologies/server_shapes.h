// Single-server clusters: D devices joined by HCCS links.
//
//  ring  device i <-> device i+1 (mod D)
//  mesh  every pair of devices directly linked
//  2x4   Ascend 910 8P style: two full-mesh groups of four; each group
//        hangs off its own PCIe switch and the two switches are joined by
//        one slower link, so cross-group traffic takes 3 hops.
//  links an explicit list of device pairs (what-if shapes).
//  switch every device has one link (its lanes together) to a switch in the
//        server, NVSwitch style: any pair is two hops apart, and a device's
//        link is shared by everything it sends or receives.
#pragma once

#include <utility>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

const char* hccsShapeName(HccsShape s);      // "ring", "mesh", "2x4", "links", "switch"
bool parseHccsShape(const std::string& name, HccsShape& out);

struct ServerParams {
  std::string name = "server";
  int devices = 8;
  HccsShape shape = HccsShape::Ring;
  LinkParams hccs;       // every scale-up link (HCCS, NVLink)
  std::string linkName = "HCCS"; // what the scale-up links are called in descriptions
  LinkParams interGroup; // 2x4 only: device-switch and switch-switch links
  std::vector<std::pair<int, int>> customLinks; // Custom only: HCCS device pairs
  bool switchReduces = false; // Switch only: it reduces and multicasts (NVLS)
  double switchReduceEfficiency = 1; // ... at this share of its ports' rate
  DeviceModel device;
};

// Throws TopologyError on impossible parameters.
Cluster buildServer(const ServerParams& params);
// Rings along the server's links for shape `links` (topologies/ring_orders.h), else none.
std::vector<std::vector<int>> serverRingsOf(const ServerParams& params);
inline constexpr int kMaxRingsPerServer = 32;

} // namespace collsim
