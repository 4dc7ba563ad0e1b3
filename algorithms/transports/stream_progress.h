// Steps completed by each stream of one rank, shared by the threads that
// run its streams: what a Wait operation waits on (an HCCL stream event).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace collsim {

class StreamProgress {
public:
  explicit StreamProgress(int streams) : done_(std::size_t(streams), 0) {}

  void advance(int stream) {
    {
      std::lock_guard lock(mutex_);
      ++done_[std::size_t(stream)];
    }
    changed_.notify_all();
  }

  // Blocks until `stream` has completed `steps` steps; false on timeout.
  bool waitFor(int stream, int steps, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return done_[std::size_t(stream)] >= steps; });
  }

private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<int> done_;
};

} // namespace collsim
