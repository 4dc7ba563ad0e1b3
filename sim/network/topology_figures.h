// What a built cluster looks like to someone planning traffic on it: which
// port each device leaves its server through, the fabric's tiers with their
// capacity down and up (oversubscription), the bandwidth across the middle
// of the servers, and the route between two devices.
#pragma once

#include <string>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

// Where a device's traffic to other servers leaves its server: the last
// node of the server on its route to the fabric (the device itself when it
// has its own NIC port), and the link it takes from there.
struct DeviceExit {
  int rank = 0, node = 0, server = 0;
  int exitNode = -1; // -1: a single server, no fabric
  std::vector<int> via; // nodes between the device and its exit (a PCIe switch)
  Bandwidth narrowest = 0; // the least bandwidth of the links from the device to its exit
  ClusterLink exitLink{}; // the link it leaves by
};

// The fabric's switches by their distance (hops) from the nearest server
// node: tier 1 touches the servers (leaves, or the one switch), tier 2 the
// spines above them. Capacities are per direction, summed over the tier.
struct FabricTier {
  int tier = 0;
  int switches = 0;
  Bandwidth down = 0; // towards the servers
  Bandwidth up = 0;   // towards the next tier (0 at the top)
  double oversubscription() const { return up > 0 ? double(down) / double(up) : 0; }
};

struct RouteHop {
  int from = 0, to = 0; // node indices
  ClusterLink link{};
};

// The device table lists the devices of the first kListedServers servers:
// each exit costs a route search over the whole cluster, and every server
// of a cluster file is built alike.
inline constexpr int kListedServers = 16;

struct TopologyFigures {
  std::vector<DeviceExit> devices; // of the first kListedServers servers
  int listedServers = 0;
  std::vector<FabricTier> tiers;
  // Most bytes per second the first half of the servers can send to the
  // second half at once (a max flow over the links, each direction its
  // own capacity); 0 on one server.
  double bisectionBandwidth = 0;
};

TopologyFigures topologyFigures(const Cluster& cluster);
// The route the simulator takes from rank `a` to rank `b` (its ECMP pick).
std::vector<RouteHop> routeBetween(const Cluster& cluster, int a, int b);

} // namespace collsim
