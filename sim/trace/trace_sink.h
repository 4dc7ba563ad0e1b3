// What the simulator reports to a trace while it runs. Recording is off
// unless a sink is attached; the hot paths test one pointer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/core/units.h"

namespace collsim {

// One step of one stream of a rank's schedule, as it ran.
struct StepTrace {
  int rank = 0, stream = 0, step = 0;
  Time start = 0, end = 0;
  std::uint64_t bytesSent = 0;
  const std::vector<Op>* ops = nullptr; // its operations (peers, kinds), if known
  StepPlace place = {};                 // its phase and chunk
};

// A value the packet-level network changes as it runs: a switch egress
// queue's depth (bytes; index: the channel), whether a link direction is
// paused by PFC (0/1; the channel), a QP's DCQCN rate (bytes/s; the QP,
// between nodes src and dst).
struct CounterTrack {
  enum class Kind : std::uint8_t { QueueBytes, PfcPaused, QpRate } kind;
  std::uint32_t index = 0;
  int src = -1, dst = -1;
};

// A message as it reached its receiver: the `seq`-th from `src` to `dst`
// on `stream` (the seq-th send of the one, the seq-th receive of the other).
struct MessageTrace {
  int src = 0, dst = 0, stream = 0;
  std::uint32_t seq = 0;
  Time posted = 0, arrived = 0;
  std::uint64_t bytes = 0;
};

class TraceSink {
public:
  virtual ~TraceSink() = default;
  // A channel serialized data during [start, end).
  virtual void channelBusy(std::uint32_t channel, Time start, Time end) = 0;
  virtual void rankStep(const StepTrace& step) = 0;
  virtual void message(const MessageTrace& /*message*/) {}
  // A counter has `value` from `at` on.
  virtual void counter(const CounterTrack& /*track*/, Time /*at*/, double /*value*/) {}
  // Something a model above the schedules did during [start, end), on a
  // track of its own (a training step's compute and bucket AllReduces).
  virtual void span(const std::string& /*track*/, const std::string& /*name*/, Time /*start*/, Time /*end*/) {}
};

} // namespace collsim
