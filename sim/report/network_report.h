// The network figures of a run (sim/network/network.h) for reports: a JSON
// object, and a table block for packet-level runs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/network/network.h"

namespace collsim {

nlohmann::ordered_json networkJson(const NetworkMetrics& m);
// The inverse, for figures that travelled as JSON (collsim-mpi sweep).
NetworkMetrics networkFromJson(const nlohmann::json& j);

struct LabelledMetrics {
  std::vector<std::string> labels; // e.g. algorithm and size
  const NetworkMetrics* metrics;
};
// Plain text or Markdown; `labelHeaders` name the labels' columns.
std::string networkTable(const std::vector<std::string>& labelHeaders, const std::vector<LabelledMetrics>& rows,
                         bool markdown);

} // namespace collsim
