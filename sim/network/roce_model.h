// How a cluster's RoCE v2 NICs and switches behave, and the per-packet
// delay jitter of its links: network parameters, kept apart from the
// topology (topologies/cluster.h). Plain data; the cluster YAML's `roce:`
// section (sim/config/roce_config.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.h"

namespace collsim {

// RoCE v2 framing on the wire per packet: Ethernet header 14 + FCS 4, IPv4
// 20, UDP 8, InfiniBand BTH 12, ICRC 4, preamble 8, inter-frame gap 12; the
// first packet of an RDMA write also carries a 16-byte RETH.
inline constexpr std::uint32_t kRocePacketOverhead = 14 + 4 + 20 + 8 + 12 + 4 + 8 + 12;
inline constexpr std::uint32_t kRethBytes = 16;

// Extra delay per packet per hop: none, uniform in [low, high], or a
// lognormal body (median, sigma) with a Pareto tail (a fraction of packets
// draw scale * U^(-1/shape) instead).
struct JitterModel {
  enum class Kind { None, Uniform, LognormalPareto } kind = Kind::None;
  Time low = 0, high = 0;          // uniform
  Time median = 0;                 // lognormal
  double sigma = 0;
  double tailFraction = 0;         // Pareto tail
  Time tailScale = 0;
  double tailShape = 2;
};

struct EcnModel {
  bool enabled = true;
  Bytes kmin = 0, kmax = 0; // egress queue depth
  double pmax = 0;
};

struct PfcModel {
  bool enabled = false;
  Bytes xoff = 0, xon = 0; // per ingress port (one priority)
};

// DCQCN at the NICs (dcqcn.h). The paper's reaction point is the special
// case decreasePeriod 0, clampTarget on, initialAlpha 1.
struct DcqcnModel {
  bool enabled = true;
  double g = 1.0 / 256;           // alpha's gain per alpha period
  Time cnpInterval = 0;           // receiver: at most one CNP per QP per interval
  Time alphaPeriod = 0, increasePeriod = 0;
  Time decreasePeriod = 0;        // CNPs in a period cut once, at its end (0: each CNP cuts)
  bool clampTarget = true;        // a cut sets target = current (off: only after an increase)
  bool clampAfterTimerIncrease = true; // with clampTarget off: a timer increase counts too
  double initialAlpha = 1.0;      // alpha at the first CNP
  Bytes byteCounter = 0;
  int fastRecoverySteps = 5;
  Bandwidth additiveIncrease = 0, hyperIncrease = 0;
  Bandwidth minRate = 0;
};

// ECN or buffer settings for some switches: those named `match`, or
// `match` followed by a number ("spine" is spine0, spine1, ...).
struct SwitchSettings {
  std::string match;
  std::optional<EcnModel> ecn;
  std::optional<Bytes> buffer;
  bool matches(const std::string& name) const;
};

struct RoceModel {
  std::uint32_t mtu = 4096;               // payload bytes per packet
  int queuePairs = 1;                     // per connection; a message is striped over them
  Bytes switchBuffer = Bytes(1) << 20;    // per egress port; packets beyond it are dropped (without PFC)
  Time retransmitTimeout = 0;             // go-back-N after this long without progress
  int ackEvery = 64;                      // the receiver acknowledges every n packets (and each message)
  std::string dcqcnPreset;                // "paper", "connectx" or "custom"
  Bandwidth dcqcnPresetRate = 0; // the line rate the preset was made for (0: custom)
  EcnModel ecn;
  PfcModel pfc;
  DcqcnModel dcqcn;
  JitterModel jitter;                     // on RoCE links
  JitterModel hccsJitter;                 // on HCCS and PCIe links
  std::vector<SwitchSettings> switches;   // per-switch ECN and buffer; later entries win
};

// A message striped over a connection's queue pairs, as both network models
// do: whole MTU packets per QP, as even as they go, so a small message uses
// fewer QPs. Each part carries `partBytes` but the last, which takes the rest.
struct QpStripe {
  Bytes partBytes;
  std::uint32_t parts;
};
inline QpStripe stripeOverQueuePairs(Bytes bytes, std::uint32_t mtu, int queuePairs) {
  const Bytes packets = std::max<Bytes>(1, (bytes + mtu - 1) / mtu);
  const Bytes perQp = (packets + Bytes(std::max(1, queuePairs)) - 1) / Bytes(std::max(1, queuePairs));
  return {perQp * mtu, std::uint32_t((packets + perQp - 1) / perQp)};
}

// The defaults: the connectx preset at 100 G (roce_model.cpp gives the sources).
RoceModel defaultRoceModel();
// DCQCN and ECN parameters of a preset, "paper" (Zhu et al., 40 G) or
// "connectx" (ConnectX firmware defaults at 100 G); false for an unknown name.
bool applyDcqcnPreset(const std::string& name, RoceModel& model);

} // namespace collsim
