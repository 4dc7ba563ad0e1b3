// Objects addressed by index and recycled: a vector that hands out the
// slots of released objects before it grows. Indices stay valid until
// released; references do not survive a later add().
#pragma once

#include <cstdint>
#include <vector>

namespace collsim {

template <typename T>
class IndexPool {
public:
  std::uint32_t add(T value) {
    if (free_.empty()) {
      items_.push_back(std::move(value));
      return std::uint32_t(items_.size() - 1);
    }
    std::uint32_t i = free_.back();
    free_.pop_back();
    items_[i] = std::move(value);
    return i;
  }
  // A slot as its last user left it (or a new default one): the caller sets
  // every field, and vectors inside keep their capacity from use to use.
  std::uint32_t acquire() {
    if (free_.empty()) {
      items_.emplace_back();
      return std::uint32_t(items_.size() - 1);
    }
    std::uint32_t i = free_.back();
    free_.pop_back();
    return i;
  }
  void release(std::uint32_t i) { free_.push_back(i); }
  T& operator[](std::uint32_t i) { return items_[i]; }
  const T& operator[](std::uint32_t i) const { return items_[i]; }

private:
  std::vector<T> items_;
  std::vector<std::uint32_t> free_;
};

} // namespace collsim
