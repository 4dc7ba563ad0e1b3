// A comparison's error by size region: where collsim's error is a bias of
// one kind of cost rather than noise. Collectives change what limits them
// with size (NCCL's and HCCL's own models are latency plus size over
// bandwidth, and libraries switch protocol and algorithm on the way):
//   small  under 1 MiB        latency-bound: launches, per-step latencies
//   mid    1 MiB to 64 MiB    pipelining: chunks, channels, per-step costs
//   large  64 MiB and more    bandwidth-bound: links, protocols' shares
// The bounds are fixed, not fitted to any curve, so two sweeps' regions
// compare. A region whose median signed error is past kSystematicError
// errs one way there: the report names it.
#pragma once

#include <string>
#include <vector>

#include "sim/validation/compare.h"

namespace collsim {

inline constexpr double kSystematicError = 0.20;

struct SizeRegionError {
  std::string name;   // small, mid, large
  Bytes from = 0;     // the region's smallest size
  Bytes below = 0;    // its bound above (0: none)
  int sizes = 0;      // compared sizes in it
  double medianError = 0;    // signed: below 0 collsim is fast
  double medianAbsError = 0;
  bool systematic() const { return sizes > 0 && (medianError > kSystematicError || medianError < -kSystematicError); }
};

// The three regions, each with the points of `points` inside it (empty ones too).
std::vector<SizeRegionError> errorBySizeRegion(const std::vector<ComparedPoint>& points);

} // namespace collsim
