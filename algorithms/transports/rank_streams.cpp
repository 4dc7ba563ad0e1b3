#include "algorithms/transports/rank_streams.h"

#include <exception>
#include <thread>
#include <vector>

namespace collsim {

void runRankStreams(const Schedule& schedule, std::byte* buffer, const RunOptions& options,
                    const std::function<std::unique_ptr<Transport>(int stream)>& endpoint) {
  const int streams = schedule.streamCount();
  StreamProgress progress(streams);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(streams));
  auto run = [&](int st) {
    try {
      std::unique_ptr<Transport> t = endpoint(st);
      runScheduleRank(schedule.stream(st), *t, buffer, options, streamTagBase(st), StreamContext{st, &progress});
    } catch (...) {
      failures[st] = std::current_exception();
    }
  };
  if (streams == 1) {
    run(0);
  } else {
    std::vector<std::jthread> threads;
    for (int st = 0; st < streams; ++st) threads.emplace_back(run, st);
  }
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
}

} // namespace collsim
