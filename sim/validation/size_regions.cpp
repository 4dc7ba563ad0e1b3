#include "sim/validation/size_regions.h"

#include <cmath>

#include "sim/core/statistics.h"

namespace collsim {

std::vector<SizeRegionError> errorBySizeRegion(const std::vector<ComparedPoint>& points) {
  constexpr Bytes MiB = Bytes(1) << 20;
  std::vector<SizeRegionError> regions = {{"small", 0, MiB}, {"mid", MiB, 64 * MiB}, {"large", 64 * MiB, 0}};
  for (SizeRegionError& r : regions) {
    std::vector<double> signedErrors, absErrors;
    for (const ComparedPoint& p : points)
      if (p.bytes >= r.from && (r.below == 0 || p.bytes < r.below)) {
        signedErrors.push_back(p.error());
        absErrors.push_back(std::abs(p.error()));
      }
    r.sizes = int(signedErrors.size());
    r.medianError = median(signedErrors);
    r.medianAbsError = median(absErrors);
  }
  return regions;
}

} // namespace collsim
