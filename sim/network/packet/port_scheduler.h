// Who sends next on a port: its transit FIFO and the queue pairs that start
// there take turns (round robin), the way a NIC arbitrates between its QPs
// and a device between forwarding and its own traffic. A QP held back by
// its DCQCN rate skips its turn and says when it may go.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/network/packet/egress_port.h"
#include "sim/network/packet/sender_qp.h"

namespace collsim {

struct NextSender {
  enum class From { Nothing, Fifo, Qp } from = From::Nothing;
  std::uint32_t index = kNoIndex; // the packet (Fifo) or the QP (Qp)
  Time retryAt = kNever;          // Nothing: when a rate-limited QP may go
};

// Takes the next turn on `port` at `now`; a FIFO packet is popped from the
// queue, a QP is only named (the caller makes its packet). QPs with nothing
// left to send leave the rotation.
NextSender takeTurn(EgressPort& port, std::vector<SenderQp>& qps, Time now);

} // namespace collsim
