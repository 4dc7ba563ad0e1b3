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
  buckets_[std::size_t(bucketOf(at))].push_back(Event{at, handler, arg});
  ++pending_;
}

void EventEngine::throwClockOverflow() {
  throw ClockOverflow("simulated time passed 106 days, the end of collsim's 64-bit picosecond clock; check the link "
                      "bandwidths, latencies and compute rates");
}

std::pair<int, Time> EventEngine::lowestBucket() const {
  int b = 1;
  while (buckets_[std::size_t(b)].empty()) ++b;
  Time earliest = std::numeric_limits<Time>::max();
  for (const Event& e : buckets_[std::size_t(b)]) earliest = std::min(earliest, e.time);
  return {b, earliest};
}

// Bucket 0 has run empty: the events of `bucket` move to the buckets below
// it, relative to their earliest time (in their order, so ties keep theirs).
void EventEngine::spread(int bucket, Time earliest) {
  buckets_[0].clear();
  head_ = 0;
  last_ = earliest;
  std::vector<Event>& from = buckets_[std::size_t(bucket)];
  for (const Event& e : from) buckets_[std::size_t(bucketOf(e.time))].push_back(e);
  from.clear();
}

Time EventEngine::runUntil(Time until) {
  Time last = now_;
  while (pending_ > 0) {
    if (head_ == buckets_[0].size()) {
      auto [bucket, earliest] = lowestBucket();
      if (earliest > until) break;
      spread(bucket, earliest);
    } else if (last_ > until) {
      break;
    }
    Event e = buckets_[0][head_++];
    --pending_;
    now_ = last = e.time;
    ++processed_;
    e.handler->onEvent(e.arg);
  }
  if (until != std::numeric_limits<Time>::max() && until > now_) now_ = until;
  return last;
}

} // namespace collsim
