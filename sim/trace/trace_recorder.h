// Records runs as Chrome trace-event JSON (opens in Perfetto or
// chrome://tracing): one process per simulated run, named after it (and its
// study point). In each:
// - a track per rank (and per further stream of a rank) with its steps;
//   each step's arguments say its phase, chunk, stream, peers, operations
//   and bytes;
// - a flow arrow from each send to the step that receives it;
// - a track per link direction that carried data, with its busy periods;
// - at packet level, counters: switch egress queue depth, PFC pause state
//   per link direction, DCQCN rate per QP (the last value in each
//   microsecond, so a long run stays openable).
// Only tracks with events are named. A rank filter keeps some ranks' tracks
// and the links, queues and QPs at their devices and NICs. Recording stops
// at a size limit, and the file says so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/trace/trace_sink.h"
#include "topologies/cluster.h"

namespace collsim {

class TraceRecorder {
public:
  // `ranks`: the ranks to record (empty: all).
  static constexpr std::size_t kDefaultMaxEvents = 2'000'000;
  explicit TraceRecorder(std::size_t maxEvents = kDefaultMaxEvents, std::vector<int> ranks = {});
  ~TraceRecorder();

  // Starts a new process track; the sink lives as long as the recorder.
  TraceSink* beginRun(const std::string& label, const Cluster& cluster);
  // The whole trace as JSON text.
  std::string json() const;
  bool truncated() const { return truncated_; }
  // With a rank filter: whether some run had one of its ranks (true without a filter).
  bool ranksFound() const { return ranks_.empty() || ranksFound_; }

private:
  class RunSink;
  std::vector<std::unique_ptr<RunSink>> runs_;
  std::size_t maxEvents_;
  std::vector<int> ranks_;
  std::size_t events_ = 0;
  bool truncated_ = false;
  bool ranksFound_ = false;
};

// "0-7,12,64-71" as a sorted list of ranks; throws std::invalid_argument
// with what is wrong.
std::vector<int> parseRankList(const std::string& text);

} // namespace collsim
