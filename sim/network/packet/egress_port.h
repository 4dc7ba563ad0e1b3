// One direction of a link at packet level: the port that serializes onto
// it, its queue, and the flow control its far end applies to it.
//
// A switch's egress port holds at most `buffer` bytes (a packet that does
// not fit is dropped, with or without PFC) and marks ECN on RoCE links by
// RED between Kmin and Kmax. The same port, seen from the node it leads to,
// is an ingress link: a switch (PFC) or a NIC or PCIe switch (PCIe
// credits) pauses it by holding it; it may send again once nobody holds it.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <vector>

#include "sim/network/busy_period.h"
#include "sim/network/packet/packet.h"
#include "sim/network/roce_model.h"
#include "topologies/cluster.h" // LinkTier

namespace collsim {

struct EgressPort {
  // The link.
  Bandwidth bandwidth = 0;
  Time latency = 0;
  LinkTier tier = LinkTier::ScaleUp; // RoCE framing, ECN and jitter on the scale-out tier
  int toNode = -1;
  bool toSwitch = false, fromSwitch = false; // an Ethernet switch at that end
  bool toBridge = false; // into a NIC or PCIe switch: lossless, back-pressured

  // The queue: transit packets in FIFO order, and the QPs whose first hop
  // this is, served round robin with it (port_scheduler.h).
  std::deque<std::uint32_t> fifo;
  Bytes queuedBytes = 0;
  std::vector<std::uint32_t> sources;
  std::size_t turn = 0;
  // A switch's egress queue: its marking, its buffer and, with PFC, the
  // depth above which it holds the links that feed it (and below which it
  // lets them go), and the links it holds.
  const EcnModel* ecn = nullptr;
  Bytes buffer = 0, pauseAbove = 0, resumeBelow = 0;
  std::vector<std::uint32_t> holding;

  // Serialization.
  Time freeAt = 0;
  Time wakeAt = kNever; // the pending wake-up; earlier ones supersede it
  Time lastArrival = 0; // FIFO order under jitter
  BusyPeriod busyPeriod;

  // As an ingress link of the node it leads to: what came over it and still
  // waits there, who holds it (the ingress threshold, egress queues), and
  // whether the pause has reached this end.
  Bytes ingressBytes = 0;
  bool heldByIngress = false;
  int holds = 0;
  bool paused = false;
  Time pausedSince = 0, pausedTotal = 0;

  // Figures.
  Bytes payload = 0, wire = 0;
  Time busy = 0;
};

// Bytes a packet takes on this port's link: RoCE framing on RoCE links.
inline Bytes wireBytes(const EgressPort& port, const Packet& p) {
  if (port.tier != LinkTier::ScaleOut) return p.payload;
  return p.payload + kRocePacketOverhead + (p.first ? kRethBytes : 0);
}

// RED: whether a packet joining a queue of `queued` bytes is marked.
bool redMarks(const EcnModel& ecn, Bytes queued, std::mt19937_64& rng);

// What may still arrive over a link after its far end decides to pause it:
// the pause frame's way up and the data already on the way down (a
// latency each at line rate), the frame being sent when the pause lands and
// the one being received, and jitter's largest delay where it has one.
Bytes pauseHeadroom(Bandwidth bandwidth, Time latency, Bytes frame, Time jitterBound);

} // namespace collsim
