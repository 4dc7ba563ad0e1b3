// The names of an enum's values, one table per enum, read both ways:
// nameOf (for output), parseName (for input) and listNames (for messages
// that say what is valid).
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace collsim {

template <typename E>
struct Named {
  E value;
  const char* name;
};

template <typename E, std::size_t N>
constexpr const char* nameOf(const std::array<Named<E>, N>& table, E value) {
  for (const auto& n : table)
    if (n.value == value) return n.name;
  return "?";
}

template <typename E, std::size_t N>
bool parseName(const std::array<Named<E>, N>& table, const std::string& name, E& out) {
  for (const auto& n : table)
    if (name == n.name) {
      out = n.value;
      return true;
    }
  return false;
}

template <typename E, std::size_t N>
std::string listNames(const std::array<Named<E>, N>& table, const char* separator = ", ") {
  std::string s;
  for (const auto& n : table) s += (s.empty() ? "" : separator) + std::string(n.name);
  return s;
}

} // namespace collsim
