// The discrete-event core: a 4-ary heap of events ordered by (time, sequence)
// (half the levels of a binary heap, and a node's four children share a
// cache line or two: with a thousand ranks' events the heap is out of cache).
//
// The sequence number makes events scheduled for the same picosecond fire in
// the order they were scheduled, so a run is a pure function of its inputs.
// An event is a handler object plus a 64-bit argument: no allocation per
// event, one indirect call to dispatch. The engine is a plain object (no
// statics); several can live side by side.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sim/core/input_error.h"
#include "sim/core/units.h"

namespace collsim {

// Simulated time ran past what a 64-bit picosecond count holds: bad input.
struct ClockOverflow : InputError {
  using InputError::InputError;
};

class EventHandler {
public:
  virtual void onEvent(std::uint64_t arg) = 0;

protected:
  ~EventHandler() = default;
};

class EventEngine {
public:
  Time now() const { return now_; }

  // Schedules `handler->onEvent(arg)` at absolute time `at` (>= now()).
  void schedule(Time at, EventHandler* handler, std::uint64_t arg);
  // Throws ClockOverflow if now() + delay passes the 64-bit clock (about
  // 106 days): work_estimate.h refuses such runs up front, this is the backstop.
  void scheduleAfter(Time delay, EventHandler* handler, std::uint64_t arg) {
    Time at;
    if (__builtin_add_overflow(now_, delay, &at)) throwClockOverflow();
    schedule(at, handler, arg);
  }

  // Runs until no events are left. Returns the time of the last event.
  Time run() { return runUntil(std::numeric_limits<Time>::max()); }
  // Runs the events up to time `until`, then sets the clock to it (if it
  // is finite and later). Returns the time of the last event run.
  Time runUntil(Time until);

  std::uint64_t eventsProcessed() const { return processed_; }

private:
  [[noreturn]] static void throwClockOverflow();
  struct Event {
    Time time;
    std::uint64_t seq;
    EventHandler* handler;
    std::uint64_t arg;
  };
  // (time, seq) as one 128-bit number: one comparison, no branch to mispredict.
  static bool before(const Event& a, const Event& b) { return order(a) < order(b); }
  using Order = unsigned __int128;
  static Order order(const Event& e) { return Order(std::uint64_t(e.time)) << 64 | e.seq; }
  static constexpr std::size_t kArity = 4;
  Event popFirst();

  std::vector<Event> heap_;
  Time now_ = 0;
  std::uint64_t nextSeq_ = 0;
  std::uint64_t processed_ = 0;
};

} // namespace collsim
