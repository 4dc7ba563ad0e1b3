// Bad input, as opposed to a fault of collsim itself.
//
// Everything a user can get wrong (a YAML key, a unit, an option, an
// algorithm that cannot run on the cluster, work too large to simulate)
// throws an InputError whose message is complete, located ("file:line:col:"
// or the option) and ready to print; the command line exits with status 2.
// Any other exception is an internal fault (exit 1).
#pragma once

#include <stdexcept>

namespace collsim {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bad input from the command line itself: an option's value, a file it
// names (exit status 2).
struct UsageError : InputError {
  using InputError::InputError;
};

} // namespace collsim
