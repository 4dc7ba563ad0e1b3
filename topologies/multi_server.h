// Clusters of N servers x D devices: the HCCS shapes of server_shapes.h
// inside each server, RoCE NICs, and a fabric between the servers.
//
// NICs: one per device (Ascend style: the device's own RoCE port goes
// straight to the fabric), or `count` per server shared by its devices over
// PCIe: device d uses NIC d mod count (interleave), NIC d * count / devices
// (block), or the NIC a list names. Each device has its own PCIe link to its
// NIC, or (shared PCIe) the devices of a NIC sit behind one PCIe switch
// whose single uplink to the NIC they share.
// Fabrics:
//  switch      every NIC on one switch (reduces: SHARP, in-network reduction
//              between servers)
//  leaf-spine  servers_per_leaf servers' NICs on each leaf; every leaf has
//              one uplink to every spine, each of bandwidth
//              (leaf downlink bandwidth) / (oversubscription x spines), so
//              oversubscription 2 halves a leaf's way up
//  rail        rail-optimized: NIC k of every server on leaf k (one leaf per
//              NIC index), leaves joined by spines as above
// These three are the two-tier spelling of a general form: a list of
// switch tiers above the servers (SwitchTier), each joining groups of the
// tier below, as ASTRA-sim's dimensions do. A three-tier fabric (rail
// groups under spines, leaves under pods under a core) is one such list.
#pragma once

#include "topologies/server_shapes.h"

namespace collsim {

enum class NicPlacement { PerDevice, PerServer };
const char* fabricKindName(FabricKind k); // "none", "switch", "leaf-spine", "rail"
bool parseFabricKind(const std::string& name, FabricKind& out);

enum class NicMap { Interleave, Block, List };

struct NicParams {
  NicPlacement placement = NicPlacement::PerDevice;
  int perServer = 1;  // PerServer only
  LinkParams pcie;    // PerServer only: device <-> NIC (or its PCIe switch)
  LinkParams roce;    // NIC (or device) <-> leaf
  std::string networkName = "RoCE"; // what the scale-out network is called in descriptions
  // PerServer only: which NIC each device uses.
  NicMap map = NicMap::Interleave;
  std::vector<int> mapList; // List: the NIC of device d
  bool pcieShared = false;  // a PCIe switch per NIC, one uplink to it
  LinkParams pcieUplink;    // pcieShared: PCIe switch <-> NIC
  int nicOf(int device, int devices) const;
};

struct FabricParams {
  FabricKind kind = FabricKind::Switch;
  int serversPerLeaf = 1; // leaf-spine
  int spines = 1;         // leaf-spine, rail
  double oversubscription = 1;
  Time uplinkLatency = 0;
  bool reduces = false; // switch only: it reduces and multicasts (InfiniBand SHARP)
  double reduceEfficiency = 1; // ... at this share of its ports' rate
};

// One tier of switches above the servers. Tier 1 joins the servers' NIC
// ports, tier k > 1 the switches of tier k - 1. A tier's groups each join
// `size` groups of the tier below (tier 1: servers; 0: all of them):
//  switch  one switch per group at tier 1, each NIC port linked to it; above,
//          `switches` per group, each linked to every switch of the group
//          below (spines, or several planes of a core)
//  rail    tier 1 only: a switch per NIC index per group, NIC k of each of
//          the group's servers on switch k
// A group below a single switch adds nothing: it gets no switches, and its
// switch stands for it in the tier above (one leaf needs no spine).
enum class SwitchShape : std::uint8_t { Switch, Rail };

struct SwitchTier {
  std::string name;       // what outputs call its links ("RoCE", "spine")
  std::string switchName; // its switches' names: this and an index ("leaf0")
  bool numbered = true;   // false: one switch, named switchName alone
  SwitchShape shape = SwitchShape::Switch;
  int size = 0;
  int switches = 1;
  // Tier 1: the NIC links. Above: each link up from a switch below, whose
  // bandwidth 0 means that switch's downlinks together divided by
  // (oversubscription x switches), so 2 halves its way up.
  LinkParams link;
  double oversubscription = 1;
  bool reduces = false; // tier 1, one switch: it reduces and multicasts (InfiniBand SHARP)
  double reduceEfficiency = 1; // ... at this share of its ports' rate
};

struct ClusterParams {
  std::string name = "cluster";
  int servers = 1;
  ServerParams server; // the shape of every server
  NicParams nic;
  FabricParams fabric; // the two-tier spelling, unless `tiers` is given
  std::vector<SwitchTier> tiers; // the general form (its tier 1 link is nic.roce)
  bool intraServerRoce = false; // see Cluster::intraServerRoce
};

// The switch tiers a two-tier spelling stands for (nic.roce and fabric).
std::vector<SwitchTier> switchTiersOf(const ClusterParams& params);

// One server without a fabric when servers == 1 and no NIC is asked for;
// throws TopologyError on impossible parameters.
Cluster buildCluster(const ClusterParams& params);

} // namespace collsim
