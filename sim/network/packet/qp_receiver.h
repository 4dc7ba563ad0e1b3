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
  Reply onPacket(const Packet& p, Time now, const ReceiverSettings& s);
};

} // namespace collsim
