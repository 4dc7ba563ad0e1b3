// A short, stable fingerprint of some text (64-bit FNV-1a, as hex): not
// cryptographic, but the same on every machine and run. It tells whether a
// study's inputs changed (--resume), whether MPI ranks got the same
// arguments, and which grid a selector baseline was made on.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace collsim {

class Fingerprint {
public:
  // Parts are separated, so ("ab", "c") and ("a", "bc") differ.
  Fingerprint& add(std::string_view part) {
    for (unsigned char c : part) hash_ = (hash_ ^ c) * 1099511628211ULL;
    hash_ = (hash_ ^ 0xFFu) * 1099511628211ULL;
    return *this;
  }
  std::uint64_t value() const { return hash_; }
  std::string hex() const {
    char s[17];
    std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(hash_));
    return s;
  }

private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

} // namespace collsim
