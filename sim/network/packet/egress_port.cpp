#include "sim/network/packet/egress_port.h"

#include <algorithm>

namespace collsim {

bool redMarks(const EcnModel& e, Bytes queued, std::mt19937_64& rng) {
  if (!e.enabled || queued <= e.kmin) return false;
  double chance = queued >= e.kmax ? 1.0 : e.pmax * double(queued - e.kmin) / double(std::max<Bytes>(1, e.kmax - e.kmin));
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < chance;
}

Bytes pauseHeadroom(Bandwidth bandwidth, Time latency, Bytes frame, Time jitterBound) {
  double inFlight = double(bandwidth) * toSeconds(2 * latency + jitterBound);
  return Bytes(inFlight + 0.5) + 2 * frame + kControlFrame;
}

} // namespace collsim
