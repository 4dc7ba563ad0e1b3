// Schedules built once and run many times.
//
// calibrate compares a log's sizes hundreds of times on clusters that differ
// only in figures (bandwidths, latencies, switch points): the same sizes'
// schedules every time. Building one and taking it down again, and working
// out the parts a composite schedule computes as it is asked (a pipeline's
// pieces, a hierarchy's servers), was a quarter of the fit's time on the
// H100 pair's log. A cache shared by those runs keeps each schedule, its
// parts worked out, for the next; schedules are immutable and their lazy
// parts thread-safe (algorithms/core/lazy.h), so two comparisons at once may
// run one. Opt-in (RunRequest::schedules): a sweep of sizes would only fill it.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "algorithms/core/schedule.h"

namespace collsim {

class ScheduleCache {
public:
  // The schedule under `key` (everything its build depends on), built by
  // `build` the first time.
  template <class Build> std::shared_ptr<const Schedule> get(const std::string& key, Build&& build) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = built_.find(key); it != built_.end()) return it->second;
    }
    std::shared_ptr<const Schedule> fresh(build()); // outside the lock: two threads may build one, one is kept
    std::lock_guard<std::mutex> lock(mutex_);
    return built_.emplace(key, std::move(fresh)).first->second;
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return built_.size();
  }

private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const Schedule>> built_;
};

} // namespace collsim
