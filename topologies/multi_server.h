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

struct ClusterParams {
  std::string name = "cluster";
  int servers = 1;
  ServerParams server; // the shape of every server
  NicParams nic;
  FabricParams fabric;
  bool intraServerRoce = false; // see Cluster::intraServerRoce
};

// One server without a fabric when servers == 1 and no NIC is asked for;
// throws TopologyError on impossible parameters.
Cluster buildCluster(const ClusterParams& params);

} // namespace collsim
