// "a,b,c" lists on the command line and in settings (algorithms, protocols).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// The items between separators, empty ones included ("a,,b" has three).
inline std::vector<std::string> splitList(std::string_view text, char separator = ',') {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    std::size_t at = text.find(separator, start);
    items.emplace_back(text.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return items;
    start = at + 1;
  }
}

// NCCL's lists ("A,B", or "^A,B" for all but those): the items, and
// whether they are excluded.
inline std::vector<std::string> splitExcludableList(std::string_view text, bool& excluded) {
  excluded = !text.empty() && text.front() == '^';
  return splitList(text.substr(excluded ? 1 : 0));
}

// The items with `separator` between them: splitList's inverse.
inline std::string joinList(const std::vector<std::string>& items, char separator = ',') {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : std::string(1, separator)) + item;
  return text;
}

// Names for a message: "ring, rhd, mesh".
inline std::string joinNames(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

} // namespace collsim
