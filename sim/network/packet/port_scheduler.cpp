#include "sim/network/packet/port_scheduler.h"

#include <algorithm>

namespace collsim {

NextSender takeTurn(EgressPort& port, std::vector<SenderQp>& qps, Time now) {
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
