#include "sim/workload/model.h"

#include <cmath>
#include <cstdio>
#include <numeric>


namespace collsim {

std::uint64_t ModelSpec::parameters() const {
  return std::accumulate(layers.begin(), layers.end(), std::uint64_t(0),
                         [](std::uint64_t sum, const ModelLayer& l) { return sum + l.parameters; });
}

static std::string shortNumber(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3g", v);
  return s;
}

PassTimes flatPassTimes(const ModelSpec& m, double deviceFlops) {
  if (m.forward) return {*m.forward, m.backward.value_or(0)};
  double seconds = m.flopsPerSample * m.microBatch / (deviceFlops * m.utilization);
  // Checked before it becomes picoseconds: a tiny utilization or rate must not wrap the clock.
  if (!(seconds * (1 + m.backwardFactor) <= kMaxComputeSeconds))
    throw InputError(m.name + ": forward and backward of one micro-batch would take " + shortNumber(seconds) +
                     " s at " + shortNumber(deviceFlops) + " FLOP/s x utilization " + shortNumber(m.utilization) +
                     ", more than collsim's clock holds in a step");
  Time forward = Time(std::llround(seconds * double(kPsPerSec)));
  return {forward, Time(std::llround(double(forward) * m.backwardFactor))};
}

} // namespace collsim
