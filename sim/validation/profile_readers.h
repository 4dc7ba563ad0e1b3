// The readers behind readProfile (profile.h), one per family of formats,
// and what they share.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/validation/profile.h"

namespace collsim {

Profile parseTraceJson(const std::string& text, const std::string& file, int device);
Profile parseKernelCsv(const std::string& text, const std::string& file, int device);

// Kernels as a reader finds them, of every device; the device kept is
// chosen once they are all read.
struct FoundKernel {
  double start = 0, duration = 0;
  KernelClass kind = KernelClass::Memory;
  int name = 0;
  int device = 0;
};

// Builds the profile of `wanted` (-1: the lowest device found): its
// kernels sorted by start. Throws ConfigError when the profile has no
// kernels, or none of that device.
Profile keepDevice(std::string file, std::string format, std::vector<std::string> names,
                   const std::vector<FoundKernel>& found, int wanted);

// A name's number in `names` (interned: profiles repeat names millions of times).
class NameTable {
public:
  int id(const std::string& name) {
    auto [it, added] = ids_.emplace(name, int(names_.size()));
    if (added) names_.push_back(name);
    return it->second;
  }
  std::vector<std::string> take() { return std::move(names_); }

private:
  std::map<std::string, int> ids_;
  std::vector<std::string> names_;
};

} // namespace collsim
