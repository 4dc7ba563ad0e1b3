// The HCCL environment variables collsim knows, one row each: whether it is
// a real HCCL setting or one of the seed article's names (and then which
// real setting comes closest), and how collsim applies it. The rows drive
// interpretHcclSettings (hccl_env.h) and `collsim hccl-env --list`.
#pragma once

#include <string>
#include <vector>

#include "sim/hccl/hccl_env.h"

namespace collsim {

struct HcclVariableUse; // what a variable's rule may change (hccl_variables.cpp)

struct HcclVariable {
  const char* name;     // "HCCL_BUFFSIZE"; ending in '*': every name with that prefix
  bool real;            // a real HCCL setting (hccl-facts.md), or the article's name
  const char* realName; // for the article's names: HCCL's closest setting ("" none)
  const char* applies;  // how collsim applies it, in a few words
  // Applies one setting and says how (empty: it said so itself); nullptr:
  // no effect on simulated time.
  std::string (*apply)(const EnvSetting& s, HcclVariableUse& use);
};

const std::vector<HcclVariable>& hcclVariables();
// The row for `name`, or nullptr.
const HcclVariable* findHcclVariable(const std::string& name);

} // namespace collsim
