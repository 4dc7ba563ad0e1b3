// "Did you mean ...?": the nearest of the names a reader knows to one it
// was given, by edit distance (a transposition counts as one edit), when it
// is near enough to be the one meant. The command line's options and
// subcommands (sim/cli/suggest.h) and every configuration key
// (ConfigNode::allowDeclared) ask it.
#pragma once

#include <string>
#include <vector>

namespace collsim {

// The name in `known` nearest `typed` (within a third of its length, at
// least 2 edits), or "" when none is that near.
std::string closestName(const std::string& typed, const std::vector<std::string>& known);

// "; did you mean 'allreduce'?" for a near name, else "".
std::string didYouMean(const std::string& typed, const std::vector<std::string>& known);

// What a reader says of a name it does not know: "unknown collective
// 'allreduc'; did you mean 'allreduce'? (expected one of: allreduce, ...)".
std::string unknownName(const std::string& what, const std::string& typed, const std::vector<std::string>& known);

} // namespace collsim
