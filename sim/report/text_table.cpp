#include "sim/report/text_table.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace collsim {
namespace {

// Numbers, percentages and sizes ("12.5", "-3%", "64MiB") align right.
bool numeric(const std::string& s) {
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-' || s[0] == '+')) return false;
  return s.find(' ') == std::string::npos;
}

} // namespace

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string percent(double share) { return fixed(100 * share, 1) + "%"; }

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csvRow(const std::vector<std::string>& fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) row += (i ? "," : "") + csvField(fields[i]);
  return row + "\n";
}

std::string TextTable::text() const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) width[c] = headers_[c].size();
  for (const auto& row : rows_)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], row[c].size());
  auto line = [&](const std::vector<std::string>& cells, char lead) {
    std::string out(1, lead);
    for (std::size_t c = 0; c < cells.size() && c < width.size(); ++c) {
      std::string space(width[c] - cells[c].size(), ' ');
      out += "  " + (numeric(cells[c]) ? space + cells[c] : cells[c] + space);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers_, '#');
  for (const auto& row : rows_) out += line(row, ' ');
  return out;
}

std::string TextTable::markdown() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& c : cells) out += " " + c + " |";
    return out + "\n";
  };
  std::string out = line(headers_) + "|";
  for (std::size_t c = 0; c < headers_.size(); ++c) out += "---|";
  out += "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

} // namespace collsim
