#include "sim/cli/execute.h"

#include <chrono>

#include "sim/trace/trace_recorder.h"

namespace collsim {

Report executeScenario(const Scenario& s, const std::string& command, const ExecuteOptions& options) {
  Report report;
  report.command = command;
  report.name = s.name;
  report.description = s.description;
  report.clusterName = s.cluster.name;
  report.clusterDescription = s.cluster.description;
  report.segment = s.simulation.segment;
  report.seed = options.seed;

  const std::size_t total = s.algorithms.size() * s.sizes.size();
  std::size_t done = 0;
  auto started = std::chrono::steady_clock::now();
  for (const auto& name : s.algorithms) {
    AlgorithmEntry algo = *findAlgorithm(s.op, name);
    bool verify = s.simulation.verify;
    for (Bytes size : s.sizes) {
      if (options.progress) {
        double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        *options.progress << "\r[" << done + 1 << "/" << total << "] " << collectiveName(s.op) << " " << name
                          << " " << formatBytes(size) << " (" << int(elapsed) << " s elapsed)   " << std::flush;
      }
      RunRequest req{s.op, &algo, s.dtype, size, s.simulation.segment, verify, s.root};
      report.results.push_back(simulateCollective(s.cluster, req, options.trace));
      verify = false; // the schedule's shape was checked once for this algorithm
      ++done;
    }
  }
  if (options.progress) *options.progress << "\r" << std::string(60, ' ') << "\r" << std::flush;
  return report;
}

} // namespace collsim
