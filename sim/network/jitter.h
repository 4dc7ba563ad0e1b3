// Draws of the per-packet jitter of a link type (sim/network/roce_model.h).
#pragma once

#include <random>

#include "sim/network/roce_model.h"

namespace collsim {

class JitterSource {
public:
  JitterSource(const JitterModel& model, std::uint64_t seed) : model_(model), rng_(seed) {}
  bool none() const { return model_.kind == JitterModel::Kind::None; }
  Time draw();

private:
  JitterModel model_;
  std::mt19937_64 rng_;
};

} // namespace collsim
