// A comparison of a measured curve with collsim's prediction as a table,
// JSON or CSV (collsim compare and collsim calibrate print the same).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/validation/compare.h"

namespace collsim {

std::string comparisonTable(const MeasuredCurve& curve, const Comparison& c, const std::string& clusterName);
nlohmann::ordered_json comparisonJson(const MeasuredCurve& curve, const Comparison& c, const std::string& clusterName);
std::string comparisonCsv(const Comparison& c);
// Notes on what reading the log left out or merged ("" when nothing).
std::string measuredCurveNotes(const MeasuredCurve& curve);

} // namespace collsim
