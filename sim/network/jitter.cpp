#include "sim/network/jitter.h"

#include <algorithm>
#include <cmath>

namespace collsim {

Time JitterSource::draw() {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  switch (model_.kind) {
  case JitterModel::Kind::None: return 0;
  case JitterModel::Kind::Uniform:
    return model_.low + Time(unit(rng_) * double(model_.high - model_.low));
  case JitterModel::Kind::LognormalPareto: {
    if (model_.tailFraction > 0 && unit(rng_) < model_.tailFraction) {
      double u = 1.0 - unit(rng_); // (0, 1]
      // Capped at a second: a heavy tail must not overflow the clock.
      return Time(std::min(1e12, double(model_.tailScale) * std::pow(u, -1.0 / model_.tailShape)));
    }
    std::normal_distribution<double> normal(0.0, 1.0);
    return Time(double(model_.median) * std::exp(model_.sigma * normal(rng_)));
  }
  }
  return 0;
}

} // namespace collsim
