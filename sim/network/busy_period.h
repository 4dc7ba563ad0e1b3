// A link direction's busy periods, for the trace: one span from when it
// starts sending after being idle until it is idle again (both network
// models use it, so a trace shows the same thing at either fidelity).
#pragma once

#include <cstdint>

#include "sim/core/units.h"
#include "sim/trace/trace_sink.h"

namespace collsim {

struct BusyPeriod {
  Time since = 0;

  // The channel starts serializing at `now`; it had been busy until `freeAt`.
  void onStart(TraceSink* trace, std::uint32_t channel, Time now, Time freeAt) {
    if (now <= freeAt) return; // still inside the current period
    if (trace && freeAt > since) trace->channelBusy(channel, since, freeAt);
    since = now;
  }
  // The run is over: report the period still open.
  void flush(TraceSink* trace, std::uint32_t channel, Time freeAt) const {
    if (trace && freeAt > since) trace->channelBusy(channel, since, freeAt);
  }
};

} // namespace collsim
