// CSV from rows of flat JSON objects (a study's points, a plan's layouts):
// one column per key, in the order keys first appear; a row without a key
// leaves its cell empty; strings as they are, numbers as JSON prints them.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/text_table.h"

namespace collsim {

inline std::string flatRowsCsv(const std::vector<nlohmann::json>& rows) {
  std::vector<std::string> keys;
  for (const auto& row : rows)
    for (const auto& [k, v] : row.items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::string out = csvRow(keys);
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const auto& k : keys)
      cells.push_back(!row.contains(k) ? "" : row[k].is_string() ? row[k].get<std::string>() : row[k].dump());
    out += csvRow(cells);
  }
  return out;
}

} // namespace collsim
