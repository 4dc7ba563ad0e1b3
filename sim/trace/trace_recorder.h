// Records runs as Chrome trace-event JSON (opens in Perfetto or
// chrome://tracing): one process per simulated run, one track per rank with
// its steps and one per link direction that carried data, with its busy
// periods. Recording stops at a size limit, and the file says so.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/trace/trace_sink.h"
#include "topologies/cluster.h"

namespace collsim {

class TraceRecorder {
public:
  explicit TraceRecorder(std::size_t maxEvents = 2'000'000);
  ~TraceRecorder();

  // Starts a new process track; the sink lives as long as the recorder.
  TraceSink* beginRun(const std::string& label, const Cluster& cluster);
  // The whole trace as JSON text.
  std::string json() const;
  bool truncated() const { return truncated_; }

private:
  class RunSink;
  std::vector<std::unique_ptr<RunSink>> runs_;
  std::size_t maxEvents_;
  std::size_t events_ = 0;
  bool truncated_ = false;
};

} // namespace collsim
