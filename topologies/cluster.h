// A cluster as the simulator sees it: devices and switches joined by
// full-duplex links. Plain data; the builders (Boost.Graph) produce it and
// check it, the network model (sim/network) times traffic over it.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/input_error.h"
#include "sim/core/units.h"

namespace collsim {

// One direction of a link; a link has two, one each way.
struct LinkParams {
  Bandwidth bandwidth = 0; // bytes per second per direction
  Time latency = 0;        // propagation, per hop
};

// A fused attention kernel's measured shares of a device's peak, forward
// and backward (sim/config/device_presets.cpp gives each its source).
struct AttentionKernel {
  std::string name; // "flash-2", "flash-triton", ...
  double forward = 1, backward = 1;
};

// What a device adds to each step of a schedule, and what the training-step
// model needs of it.
struct DeviceModel {
  // Fixed cost before a step's operations are posted (launch, notify). 0 = none.
  Time stepOverhead = 0;
  // Throughput of the reduction in receive-reduce; 0 = free (not modelled).
  Bandwidth reduceBandwidth = 0;
  // Peak compute rate (FLOP/s) for models timed from their FLOPs; 0 = unknown.
  double flops = 0;
  // Device memory: its bandwidth (optimizer step, bucket copies) and size.
  Bandwidth memoryBandwidth = 0;
  Bytes memory = 0;
  // What its kernels reach (sim/workload/operation_cost.h): the share of
  // `flops` its best matrix multiplies reach, how many output tiles it
  // computes at once (SMs, AI cores; 0: no wave quantization) and their
  // size, the share of `flops` fused attention reaches forward and
  // backward, and the share of memoryBandwidth elementwise kernels reach.
  std::string name;
  double gemmEfficiency = 1;
  int computeUnits = 0;
  int tileRows = 256, tileColumns = 128;
  double attentionForward = 1, attentionBackward = 1;
  double memoryEfficiency = 1;
  // Other attention kernels measured on it, for a model that names the one
  // it runs (attention: flash-1, ...); attentionForward/Backward are the
  // best one's, what `attention: flash` runs, named attentionKernel ("":
  // unnamed).
  std::vector<AttentionKernel> attentionKernels;
  std::string attentionKernel;
  // The framework's fixed cost of each layer's pass (forward, backward,
  // recomputation) beyond its kernels: launches and hooks the device waits
  // for. 0 in every preset; `collsim calibrate` fits it to measured runs.
  Time layerOverhead = 0;
  // A calibrated device file's runs and the relative error of a step time
  // predicted from them (`calibration:`, sim/validation/compute_calibration.h);
  // runs 0: the figures are the preset's, uncalibrated.
  struct Calibration {
    int runs = 0;
    double error = 0;
  } calibration;
};

// Switch: an Ethernet switch (finite buffers, ECN marking, PFC, drops at
// packet level). Nic and ServerSwitch (a PCIe switch, or an NVSwitch-like
// switch joining a server's devices) forward losslessly: they hold back
// their inputs when their queue fills (credit back-pressure); they never
// mark or drop.
enum class NodeKind { Device, Switch, Nic, ServerSwitch };

struct ClusterNode {
  NodeKind kind;
  std::string name;
  int server = -1; // the server it is part of; -1 for fabric switches
  bool reduces = false; // a switch that adds up and multicasts what devices send (NVLS, SHARP)
  // The share of its ports' rate at which it does so: what goes through its
  // reduction and multicast takes 1/efficiency of the time on each port
  // (the H100 presets: 0.74, at which 8 H100 reach the 480 GB/s of NVLS
  // bus bandwidth NVIDIA reports).
  double reduceEfficiency = 1;
};

// Which kind of tier a link belongs to: a server's scale-up links (HCCS,
// NVLink), the scale-out network (RoCE, InfiniBand; lossy Ethernet at packet
// level) or the PCIe between devices and NICs. Names exist only at input and
// output: a cluster file calls its tiers what it likes (Cluster::tierName),
// programs read tierKey.
enum class LinkTier : std::uint8_t { ScaleUp, ScaleOut, Pcie };
inline const char* tierKey(LinkTier t) {
  return t == LinkTier::ScaleUp ? "scale_up" : t == LinkTier::ScaleOut ? "scale_out" : "pcie";
}
inline std::optional<LinkTier> tierOfKey(const std::string& key) {
  for (LinkTier t : {LinkTier::ScaleUp, LinkTier::ScaleOut, LinkTier::Pcie})
    if (key == tierKey(t)) return t;
  return std::nullopt;
}

// A server's scale-up shape (topologies/server_shapes.h) and how the
// servers are joined (topologies/multi_server.h; None: one server).
enum class HccsShape : std::uint8_t { Ring, Mesh, TwoGroupsOfFour, Custom, Switch };
enum class FabricKind : std::uint8_t { None, Switch, LeafSpine, Rail };

// One tier of a cluster as its file names it. A cluster has one or more of
// each kind in use: a rail tier and a spine tier above it are both scale-out.
struct ClusterTier {
  LinkTier kind;
  std::string name; // "NVLink", "RoCE", "spine", "PCIe"
};

struct ClusterLink {
  int a;
  int b;
  LinkParams params;
  LinkTier tier;       // its kind (what the models do with it)
  std::uint8_t level;  // its tier, an index into Cluster::tiers (what outputs call it)
};

struct Cluster {
  std::string name;
  int servers = 1;
  int devicesPerServer = 1;
  std::vector<ClusterNode> nodes;
  std::vector<ClusterLink> links;
  std::vector<int> rankNode; // rank -> node index
  // Ring orders of a server's devices along its own links (ring_orders.h);
  // empty when any order will do (a switch, a full mesh, a ring in index order).
  std::vector<std::vector<int>> serverRings;
  DeviceModel device;

  int ranks() const { return int(rankNode.size()); }
  // "8 devices, HCCS ring" style one-liner.
  std::string description;
  HccsShape hccsShape = HccsShape::Ring; // inside a server
  // Its tiers, from the devices up (scale-up first, PCIe last), as the
  // cluster file names them: HCCS and RoCE, NVLink, rail and spine, ...
  std::vector<ClusterTier> tiers;
  // A link's tier as people read it, in every output.
  const std::string& tierName(const ClusterLink& l) const { return tiers[l.level].name; }
  FabricKind fabric = FabricKind::None; // between servers
  // Whether traffic between devices of one server may leave the server
  // (through the NICs and the fabric). HCCL keeps it on HCCS unless
  // HCCL_INTRA_ROCE_ENABLE is set; so does collsim by default.
  bool intraServerRoce = false;
};

// A topology that cannot exist (bad shape, zero bandwidth, disconnected).
struct TopologyError : InputError {
  using InputError::InputError;
};

} // namespace collsim
