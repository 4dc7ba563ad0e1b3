// A table for people: columns as wide as their widest cell, text left and
// numbers right; or the same as a Markdown table.
#pragma once

#include <string>
#include <vector>

namespace collsim {

// "%.*f": a number with a fixed number of decimals.
std::string fixed(double v, int decimals);

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
