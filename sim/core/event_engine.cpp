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
  heap_.push_back(Event{at, nextSeq_++, handler, arg});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
}

void EventEngine::throwClockOverflow() {
  throw ClockOverflow("simulated time passed 106 days, the end of collsim's 64-bit picosecond clock; check the link "
                      "bandwidths, latencies and compute rates");
}

Time EventEngine::runUntil(Time until) {
  Time last = now_;
  while (!heap_.empty() && heap_.front().time <= until) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event e = heap_.back();
    heap_.pop_back();
    now_ = last = e.time;
    ++processed_;
    e.handler->onEvent(e.arg);
  }
  if (until != std::numeric_limits<Time>::max() && until > now_) now_ = until;
  return last;
}

} // namespace collsim
