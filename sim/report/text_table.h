// A table for people: columns as wide as their widest cell, text left and
// numbers right; or the same as a Markdown table.
#pragma once

#include <string>
#include <vector>

namespace collsim {

// "%.*f": a number with a fixed number of decimals.
std::string fixed(double v, int decimals);
// A share as a percentage with one decimal: 0.123 -> "12.3%".
std::string percent(double share);
// A CSV field, quoted (and its quotes doubled) when it holds , " or a newline.
std::string csvField(const std::string& text);
// One CSV record: the fields escaped, joined by commas, ending in a newline.
std::string csvRow(const std::vector<std::string>& fields);

class TextTable {
public:
  explicit TextTable(std::vector<std::string> headers) : headers_(std::move(headers)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  // Plain text; the header line starts with "#" (a comment to CSV-minded tools).
  std::string text() const;
  std::string markdown() const;

private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

} // namespace collsim
