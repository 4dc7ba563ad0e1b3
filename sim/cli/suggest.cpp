#include "sim/cli/suggest.h"

#include <algorithm>
#include <set>
#include <sstream>

#include <CLI/CLI.hpp>

namespace collsim {
namespace {

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

std::string suggestionsFor(const CLI::App& app, const std::string& error, const std::string& program) {
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
    if (!near.empty() && near != name) out += program + ": did you mean " + near + " (not " + name + ")?\n";
  }
  return out;
}

} // namespace collsim
