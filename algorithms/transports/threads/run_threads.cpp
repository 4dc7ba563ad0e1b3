#include "algorithms/transports/threads/run_threads.h"

#include <chrono>
#include <thread>

#include "algorithms/transports/rank_streams.h"
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

  // One thread per rank (and, inside it, per stream).
  ThreadsWorld world(p);
  std::vector<std::string> errors(static_cast<std::size_t>(p));
  auto start = std::chrono::steady_clock::now();
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < p; ++r) {
      threads.emplace_back([&, r] {
        try {
          runRankStreams(schedule, buffers[r].data(), options,
                         [&](int) { return std::make_unique<ThreadsTransport>(world, r); });
        } catch (const std::exception& e) {
          errors[r] = e.what();
        }
      });
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
