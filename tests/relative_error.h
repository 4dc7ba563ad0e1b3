// Relative comparisons for tests. doctest::Approx adds a scale of 1 to its
// tolerance, so for values far below 1 (seconds) it accepts nearly anything;
// tests compare relative errors explicitly instead.
#pragma once

#include <cmath>

namespace collsim::testing {

inline double relativeError(double actual, double expected) {
  if (expected == 0) return std::abs(actual);
  return std::abs(actual - expected) / std::abs(expected);
}

} // namespace collsim::testing

// Checks |actual / expected - 1| <= tolerance and shows both values if not.
#define CHECK_WITHIN(actual, expected, tolerance)                                                  \
  do {                                                                                             \
    double actual_ = (actual), expected_ = (expected);                                             \
    INFO("actual " << actual_ << ", expected " << expected_ << ", relative error "                 \
                   << collsim::testing::relativeError(actual_, expected_));                        \
    CHECK(collsim::testing::relativeError(actual_, expected_) <= (tolerance));                     \
  } while (0)
