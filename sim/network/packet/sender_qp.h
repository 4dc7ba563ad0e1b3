// The sending end of a RoCE v2 queue pair (or of an HCCS path's single
// ordered stream): the parts of messages it carries, cut into MTU packets
// by sequence number; DCQCN's rate, which spaces its packets; go-back-N on a
// NACK or a timeout; and the ACKs that let it forget delivered parts.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/network/dcqcn.h"
#include "sim/network/packet/packet.h"
#include "sim/network/routing.h"

namespace collsim {

struct SenderQp {
  struct Part { // one message's share on this QP
    std::uint32_t message;
    Bytes bytes;
    std::uint32_t firstSeq, endSeq;
  };

  int src = -1, dst = -1;
  Routing::Route route{};
  std::uint32_t firstPort = 0;
  bool roce = false;     // crosses a RoCE link: DCQCN, ACKs and go-back-N apply
  Time controlDelay = 0; // a control packet's way back
  Bandwidth lineRate = 0;

  std::deque<Part> parts; // not yet acknowledged (on RoCE) or not yet sent (otherwise)
  std::uint32_t nextSeq = 0, endSeq = 0, ackedSeq = 0, sentHigh = 0;
  Time nextSendAt = 0, lastSentAt = 0;
  Bytes lastWire = 0;
  bool listed = false; // among its first port's sources
  DcqcnRate rate;
  bool increaseTimer = false, rtoTimer = false;
  Time increaseDueAt = 0; // the live increase timer's time (a cut leaves older ones stale)
  std::uint64_t progress = 0, progressAtArm = 0; // ACKs and NACKs seen, for the timeout

  bool hasUnsent() const { return nextSeq < endSeq; }
  bool allAcknowledged() const { return ackedSeq >= endSeq; }
  // Queues `bytes` of message `message` as the next part, in `mtu` packets.
  void addPart(std::uint32_t message, Bytes bytes, Bytes mtu);
  // The next packet to send (a resend after going back, or a new one).
  Packet nextPacket(std::uint32_t self, Bytes mtu);
  // The receiver has every packet before `seq`.
  void onAck(std::uint32_t seq);
  // Resend from `seq` on; false if that is not behind what was sent.
  bool goBack(std::uint32_t seq);
  // A packet of `wire` bytes left at `now`: DCQCN decides when the next may go.
  void paceAfter(Bytes wire, Time now);
  // The rate changed: the next packet's time follows it (a NIC's rate
  // limiter spaces packets at the rate it has now, not the one it had).
  void repace();
};

} // namespace collsim
