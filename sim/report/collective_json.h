// One collective run as a JSON object (the scenario and study reports).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/run/simulate.h"

namespace collsim {

nlohmann::ordered_json collectiveRunJson(const CollectiveRun& run, bool fastest);

} // namespace collsim
