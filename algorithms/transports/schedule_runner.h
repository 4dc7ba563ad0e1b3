// Runs one rank's part of a single-stream schedule (or one stream of a
// schedule) over a real transport on a real buffer.
//
// The same interpretation as the simulator's executor: per step, every send
// takes a copy of its bytes when posted (so a step may send a range and
// receive into it), receives land in staging buffers, and after the wait
// the receives are written (or reduced) into the buffer in operation order.
// Tags number the messages of each ordered pair, which is the schedule's
// matching rule; `tagBase` keeps the streams of one schedule apart.
#pragma once

#include <chrono>
#include <cstddef>

#include "algorithms/core/schedule.h"
#include "algorithms/transports/reduction.h"
#include "algorithms/transports/stream_progress.h"
#include "algorithms/transports/transport.h"

namespace collsim {

struct RunOptions {
  DataType type = DataType::Float32;
  ReduceOp op = ReduceOp::Sum;
  std::chrono::milliseconds timeout{30'000};
};

// The stream this runner runs, and the rank's progress shared with its
// other streams (needed when the schedule has Wait operations).
struct StreamContext {
  int stream = 0;
  StreamProgress* progress = nullptr;
};

// `buffer` holds spec.bufferBytes() bytes. Throws PeerTimeout on timeout.
void runScheduleRank(const Schedule& schedule, Transport& transport, std::byte* buffer, const RunOptions& options,
                     std::uint64_t tagBase = 0, StreamContext context = {});

// Tag base of stream s: streams never share tags (each numbers up to 2^40
// messages per peer from its base on).
inline constexpr int kStreamTagShift = 40;
inline std::uint64_t streamTagBase(int stream) { return std::uint64_t(stream) << kStreamTagShift; }

// A tag read back: its stream, and which of that stream's messages to one peer.
struct StreamTag {
  int stream;
  std::uint64_t seq;
};
inline StreamTag decodeStreamTag(std::uint64_t tag) {
  return {int(tag >> kStreamTagShift), tag & ((std::uint64_t(1) << kStreamTagShift) - 1)};
}

} // namespace collsim
