// Runs a schedule with one thread per rank on real buffers and checks every
// rank's result against ReferenceData.
#pragma once

#include <string>
#include <vector>

#include "algorithms/transports/schedule_runner.h"
#include "algorithms/transports/threads/threads_transport.h"

namespace collsim {

struct RealRunReport {
  std::uint64_t wrong = 0;          // elements that differ from the definition
  std::string firstWrong;           // the first of them, described
  std::vector<std::string> errors;  // transport failures (timeouts ...)
  double seconds = 0;               // wall time of the collective
  std::vector<ThreadsWorld::Delivery> deliveries;
  bool ok() const { return wrong == 0 && errors.empty(); }
};

RealRunReport runWithThreads(const Schedule& schedule, const CollectiveSpec& spec, const RunOptions& options);

} // namespace collsim
