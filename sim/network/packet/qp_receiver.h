// The receiving end of a queue pair: it accepts packets in order only,
// answers a gap with one NACK, a marked packet with a CNP (at most one per
// CNP interval), and acknowledges each part's end, every few packets and
// whatever comes in after a quiet spell. It knows only what the packets
// carry: nothing is read from the sender.
#pragma once

#include <cstdint>

#include "sim/network/packet/packet.h"

namespace collsim {

struct ReceiverSettings {
  bool roce = false;        // acknowledges (HCCS and PCIe paths do not)
  bool sendCnps = false;    // DCQCN is on
  Time cnpInterval = 0;
  std::uint32_t ackEvery = 64;
  Time ackInterval = 0;
};

struct QpReceiver {
  std::uint32_t expected = 0;
  bool nackOutstanding = false;
  Time lastCnp = -1;
  std::uint32_t sinceAck = 0, lastAckSent = 0;
  Time lastAckAt = 0;
  Bytes delivered = 0;

  // What to do about one arriving packet: a CNP first, then at most one
  // ACK or NACK (up to `seq`); `partDone` when it completed its part.
  struct Reply {
    bool cnp = false;
    bool answer = false;
    Control kind = Control::Ack;
    std::uint32_t seq = 0;
    bool partDone = false;
  };
  Reply onPacket(const Packet& p, Time now, const ReceiverSettings& s); // inline below: per packet
};

inline QpReceiver::Reply QpReceiver::onPacket(const Packet& p, Time now, const ReceiverSettings& s) {
  Reply r;
  if (p.ecn && s.sendCnps && (lastCnp < 0 || now - lastCnp >= s.cnpInterval)) {
    lastCnp = now;
    r.cnp = true;
  }
  auto answer = [&](Control kind, std::uint32_t seq) {
    r.answer = true;
    r.kind = kind;
    r.seq = seq;
  };
  if (p.seq > expected) { // a gap: something was dropped
    if (!nackOutstanding) {
      nackOutstanding = true;
      answer(Control::Nack, expected);
    }
    return r;
  }
  if (p.seq < expected) { // a duplicate after going back: tell the sender how far we are
    if (s.roce && lastAckSent != expected) {
      lastAckSent = expected;
      answer(Control::Ack, expected);
    }
    return r;
  }
  ++expected;
  nackOutstanding = false;
  delivered += p.payload;
  r.partDone = p.lastOfPart;
  // A throttled QP must not wait long for its ACKs: acknowledge after a quiet spell too.
  if (r.partDone || ++sinceAck >= s.ackEvery || now - lastAckAt >= s.ackInterval) {
    sinceAck = 0;
    lastAckSent = expected;
    lastAckAt = now;
    if (s.roce) answer(Control::Ack, expected);
  }
  return r;
}

} // namespace collsim
