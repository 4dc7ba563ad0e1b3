#include "sim/core/event_engine.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace collsim {

void EventEngine::schedule(Time at, EventHandler* handler, std::uint64_t arg) {
  // Time never runs backwards: an event in the past is a bug in a model.
  if (at < now_)
    throw std::logic_error("event scheduled in the past: " + std::to_string(at) +
                           " ps < now " + std::to_string(now_) + " ps");
  Event e{at, nextSeq_++, handler, arg};
  std::size_t i = heap_.size();
  heap_.push_back(e);
  for (; i > 0; i = (i - 1) / kArity) { // sift up: parents later than e move down
    const Event& parent = heap_[(i - 1) / kArity];
    if (!before(e, parent)) break;
    heap_[i] = parent;
  }
  heap_[i] = e;
}

// Takes the first event; the last one fills the hole, sifted down past
// earlier children.
EventEngine::Event EventEngine::popFirst() {
  Event first = heap_.front();
  Event last = heap_.back();
  heap_.pop_back();
  std::size_t n = heap_.size(), i = 0;
  if (n == 0) return first;
  for (;;) {
    std::size_t child = kArity * i + 1;
    if (child >= n) break;
    std::size_t best = child, end = std::min(child + kArity, n);
    for (std::size_t c = child + 1; c < end; ++c)
      if (before(heap_[c], heap_[best])) best = c;
    if (!before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
  return first;
}

void EventEngine::throwClockOverflow() {
  throw ClockOverflow("simulated time passed 106 days, the end of collsim's 64-bit picosecond clock; check the link "
                      "bandwidths, latencies and compute rates");
}

Time EventEngine::runUntil(Time until) {
  Time last = now_;
  while (!heap_.empty() && heap_.front().time <= until) {
    Event e = popFirst();
    now_ = last = e.time;
    ++processed_;
    e.handler->onEvent(e.arg);
  }
  if (until != std::numeric_limits<Time>::max() && until > now_) now_ = until;
  return last;
}

} // namespace collsim
