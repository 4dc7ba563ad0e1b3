// "Did you mean ...?" for a mistyped option or subcommand: the closest of
// the names the command knows, by edit distance (a transposition counts as
// one edit), when it is close enough to be the one meant.
#pragma once

#include <string>
#include <vector>

#include "sim/core/closest_name.h"

namespace CLI {
class App;
}

namespace collsim {

// A line per argument that CLI11 did not expect (`error` is its message),
// naming the option of the subcommand that was parsed, or the subcommand,
// that it most likely meant: "collsim: did you mean --min-bytes (not --minbyte)?".
std::string suggestionsFor(const CLI::App& app, const std::string& error, const std::string& program = "collsim");

} // namespace collsim
