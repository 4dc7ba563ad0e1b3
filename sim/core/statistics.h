// Small statistics over a handful of numbers (errors of a comparison or a fit).
#pragma once

#include <algorithm>
#include <vector>

namespace collsim {

// The middle value (the mean of the two middle ones for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

} // namespace collsim
