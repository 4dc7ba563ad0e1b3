// What travels through the packet-level model: data packets, which carry
// everything the receiver needs (the message they end a part of), and the
// control packets that answer them.
#pragma once

#include <cstdint>
#include <limits>

#include "sim/core/units.h"

namespace collsim {

inline constexpr std::uint32_t kNoIndex = ~std::uint32_t(0);
inline constexpr Time kNever = std::numeric_limits<Time>::max();
// CNP, ACK and NACK frames on the wire.
inline constexpr Bytes kControlFrame = 64;

struct Packet {
  std::uint32_t qp, seq, payload;
  std::uint32_t message;    // the message whose part it carries
  std::uint32_t wire;       // bytes on the link it is queued for or crossing
  std::uint32_t hop;        // index into the route of the link it is crossing
  std::uint32_t ingress;    // the link it came in on, while buffered in a switch or NIC
  bool first;               // the first packet of a message's part (RETH)
  bool lastOfPart;          // the receiver completes the part with it
  bool ecn;
};

enum class Control : std::uint8_t { Cnp, Nack, Ack };

struct ControlPacket {
  std::uint32_t qp;
  Control kind;
  std::uint32_t seq;
};

// A message as the application sees it: done when every QP's part is in.
struct Message {
  std::uint64_t cookie;
  std::uint32_t partsLeft;
  Time sentAt;
};

} // namespace collsim
