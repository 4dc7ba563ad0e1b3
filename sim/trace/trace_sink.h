// What the simulator reports to a trace while it runs. Recording is off
// unless a sink is attached; the hot paths test one pointer.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/units.h"

namespace collsim {

class TraceSink {
public:
  virtual ~TraceSink() = default;
  // A channel serialized data during [start, end).
  virtual void channelBusy(std::uint32_t channel, Time start, Time end) = 0;
  // A rank ran step `step` of one stream of its schedule during [start, end).
  virtual void rankStep(int rank, int stream, int step, Time start, Time end, std::uint64_t bytesSent) = 0;
  // Something a model above the schedules did during [start, end), on a
  // track of its own (a training step's compute and bucket AllReduces).
  virtual void span(const std::string& /*track*/, const std::string& /*name*/, Time /*start*/, Time /*end*/) {}
};

} // namespace collsim
