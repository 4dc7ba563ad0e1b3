// Runs one rank's part of a schedule over a real transport on a real buffer.
//
// The same interpretation as the simulator's executor: per step, every send
// takes a copy of its bytes when posted (so a step may send a range and
// receive into it), receives land in staging buffers, and after the wait
// the receives are written (or reduced) into the buffer in operation order.
// Tags number the messages of each ordered pair, which is the schedule's
// matching rule.
#pragma once

#include <chrono>
#include <cstddef>

#include "algorithms/core/schedule.h"
#include "algorithms/transports/reduction.h"
#include "algorithms/transports/transport.h"

namespace collsim {

struct RunOptions {
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  std::chrono::milliseconds timeout{30'000};
};

// `buffer` holds spec.bufferBytes() bytes. Throws TransportError on timeout.
void runScheduleRank(const Schedule& schedule, Transport& transport, std::byte* buffer, const RunOptions& options);

} // namespace collsim
