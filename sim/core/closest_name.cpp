#include "sim/core/closest_name.h"

#include <algorithm>

namespace collsim {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions
// and adjacent transpositions, each one edit.
std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

} // namespace

std::string closestName(const std::string& typed, const std::vector<std::string>& known) {
  // Long inputs (a file's content where a key was expected) are not names.
  if (typed.size() > 256) return "";
  std::string best;
  std::size_t bestDistance = std::max<std::size_t>(2, typed.size() / 3) + 1;
  for (const std::string& name : known) {
    std::size_t d = editDistance(typed, name);
    if (d < bestDistance) best = name, bestDistance = d;
  }
  return best;
}

std::string didYouMean(const std::string& typed, const std::vector<std::string>& known) {
  std::string near = closestName(typed, known);
  return near.empty() ? "" : "; did you mean '" + near + "'?";
}

std::string unknownName(const std::string& what, const std::string& typed, const std::vector<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return "unknown " + what + " '" + typed + "'" + didYouMean(typed, known) + " (expected one of: " + list + ")";
}

} // namespace collsim
