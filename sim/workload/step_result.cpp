#include "sim/workload/step_result.h"

#include <algorithm>

namespace collsim {

Time StepResult::meanAllReduce() const {
  if (buckets.empty()) return 0;
  Time sum = 0;
  for (const auto& b : buckets) sum += b.end - b.start;
  return sum / Time(buckets.size());
}

double StepResult::samplesPerSecond() const {
  return iteration ? double(microBatch) * accumulation * (replicas ? replicas : ranks) / toSeconds(iteration) : 0;
}

double StepResult::mfu() const {
  if (iteration == 0 || flopsPerSample <= 0 || devicePeakFlops <= 0) return 0;
  return 3.0 * flopsPerSample * samplesPerSecond() / (devicePeakFlops * double(ranks));
}

Time unionLength(std::vector<std::pair<Time, Time>> spans) {
  std::sort(spans.begin(), spans.end());
  Time total = 0, coveredTo = 0;
  for (auto [a, b] : spans) {
    a = std::max(a, coveredTo);
    if (b > a) total += b - a, coveredTo = b;
  }
  return total;
}

} // namespace collsim
