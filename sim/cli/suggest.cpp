#include "sim/cli/suggest.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>

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

// The long options of a command (with their dashes; the first name of each:
// later ones are older spellings) and its subcommands' names.
std::vector<std::string> namesOf(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    if (!o->get_lnames().empty()) names.push_back("--" + o->get_lnames().front());
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// The program and the subcommands the user named, outermost first
// (collsim, selector, check).
std::vector<const CLI::App*> parsedChain(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  for (bool deeper = true; deeper;) {
    deeper = false;
    for (const CLI::App* sub : chain.back()->get_subcommands({}))
      if (sub->parsed()) {
        chain.push_back(sub);
        deeper = true;
        break;
      }
  }
  return chain;
}

} // namespace

std::string closestName(const std::string& typed, const std::vector<std::string>& known) {
  std::string best;
  std::size_t bestDistance = std::max<std::size_t>(2, typed.size() / 3) + 1;
  for (const std::string& name : known) {
    std::size_t d = editDistance(typed, name);
    if (d < bestDistance) best = name, bestDistance = d;
  }
  return best;
}

std::string suggestionsFor(const CLI::App& app, const std::string& error) {
  const std::vector<const CLI::App*> chain = parsedChain(app);
  const CLI::App& command = *chain.back();
  std::vector<std::string> known = namesOf(command);
  // What was left over: the arguments CLI11 names, or (a subcommand missing)
  // the words it could not place.
  std::string words;
  if (auto colon = error.find("not expected: "); colon != std::string::npos) words = error.substr(colon + 14);
  for (const CLI::App* level : chain)
    for (const std::string& w : level->remaining()) words += " " + w;
  const bool takesSubcommand = !command.get_subcommands({}).empty();
  std::istringstream extras(words);
  std::set<std::string> seen;
  std::string out, typed;
  while (extras >> typed) {
    std::string name = typed.substr(0, typed.find('='));
    bool option = name.rfind("-", 0) == 0;
    if ((!option && !takesSubcommand) || !seen.insert(name).second) continue; // a value, or said already
    std::string near = closestName(name, known);
    if (!near.empty() && near != name) out += "collsim: did you mean " + near + " (not " + name + ")?\n";
  }
  return out;
}

} // namespace collsim
