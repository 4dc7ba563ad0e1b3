// Independent jobs on the machine's cores: job(i) for every i, on
// `threads` threads, taking the next index as they go. The first exception
// a job throws stops the others from starting new jobs and is rethrown.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace collsim {

// `progress(done)` runs after each job, one call at a time.
inline void runParallel(std::size_t count, int threads, const std::function<void(std::size_t)>& job,
                        const std::function<void(std::size_t)>& progress = {}) {
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex lock;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i; (i = next++) < count;) {
      try {
        job(i);
      } catch (...) {
        std::lock_guard guard(lock);
        if (!failure) failure = std::current_exception();
        next = count;
        return;
      }
      std::size_t n = ++done;
      if (progress) {
        std::lock_guard guard(lock);
        progress(n);
      }
    }
  };
  {
    std::vector<std::jthread> pool;
    int n = std::max(1, std::min<int>(threads, int(count)));
    for (int t = 0; t < n; ++t) pool.emplace_back(work);
  }
  if (failure) std::rethrow_exception(failure);
}

inline int hardwareThreads() { return std::max(1u, std::thread::hardware_concurrency()); }

} // namespace collsim
