#include "algorithms/transports/threads/run_threads.h"

#include <chrono>
#include <thread>

#include "algorithms/transports/reference_data.h"

namespace collsim {

RealRunReport runWithThreads(const Schedule& schedule, const CollectiveSpec& spec, const RunOptions& options) {
  const int p = spec.ranks;
  ReferenceData reference(spec, options.type, options.op);
  std::vector<std::vector<std::byte>> buffers(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    buffers[r].resize(spec.bufferBytes());
    reference.fill(r, buffers[r].data());
  }

  // One thread per rank and stream; a rank's streams share its buffer
  // (they touch disjoint bytes).
  ThreadsWorld world(p);
  const int streams = schedule.streamCount();
  std::vector<std::unique_ptr<StreamProgress>> progress;
  for (int r = 0; r < p; ++r) progress.push_back(std::make_unique<StreamProgress>(streams));
  std::vector<std::string> errors(std::size_t(p) * std::size_t(streams));
  auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    for (int st = 0; st < streams; ++st) {
      for (int r = 0; r < p; ++r) {
        threads.emplace_back([&, r, st] {
          try {
            ThreadsTransport transport(world, r);
            runScheduleRank(schedule.stream(st), transport, buffers[r].data(), options, streamTagBase(st),
                            StreamContext{st, progress[r].get()});
          } catch (const std::exception& e) {
            errors[std::size_t(st) * std::size_t(p) + std::size_t(r)] = e.what();
          }
        });
      }
    }
  }
  RealRunReport report;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& e : errors)
    if (!e.empty()) report.errors.push_back(e);
  for (int r = 0; r < p; ++r)
    report.wrong += reference.countWrong(r, buffers[r].data(), report.firstWrong.empty() ? &report.firstWrong : nullptr);
  report.deliveries = world.deliveries();
  return report;
}

} // namespace collsim
