// Who sends next on a port: its transit FIFO and the queue pairs that start
// there take turns (round robin), the way a NIC arbitrates between its QPs
// and a device between forwarding and its own traffic. A QP held back by
// its DCQCN rate skips its turn and says when it may go.
#pragma once

#include <algorithm>
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
// left to send leave the rotation. (Inline: it runs for every packet sent.)
inline NextSender takeTurn(EgressPort& port, std::vector<SenderQp>& qps, Time now) {
  NextSender next;
  for (std::size_t tried = 0, slots = port.sources.size() + 1; tried < slots; ++tried) {
    std::size_t slot = port.turn % slots;
    port.turn = slot + 1;
    if (slot == 0) { // the transit FIFO's turn
      if (port.fifo.empty()) continue;
      next.from = NextSender::From::Fifo;
      next.index = port.fifo.front();
      port.fifo.pop_front();
      return next;
    }
    std::uint32_t id = port.sources[slot - 1];
    SenderQp& q = qps[id];
    if (!q.hasUnsent()) { // nothing left: leave the rotation
      q.listed = false;
      port.sources.erase(port.sources.begin() + std::ptrdiff_t(slot - 1));
      --slots;
      port.turn = slot;
      --tried;
      continue;
    }
    if (q.nextSendAt > now) {
      next.retryAt = std::min(next.retryAt, q.nextSendAt);
      continue;
    }
    next.from = NextSender::From::Qp;
    next.index = id;
    return next;
  }
  return next;
}

} // namespace collsim
