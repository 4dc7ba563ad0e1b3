// A first-in first-out queue on one vector: pops move a head index, and the
// vector is cleared when it runs empty (or compacted when the popped part
// is most of it), so a queue that empties and fills again reuses its
// memory. std::deque allocates and frees a block each time its front or
// back crosses one: a cost per message where queues are short and many.
#pragma once

#include <cstddef>
#include <vector>

namespace collsim {

template <typename T>
class FifoQueue {
public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  const T& front() const { return items_[head_]; }
  void push_back(const T& value) { items_.push_back(value); }
  void pop_front() {
    if (++head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= 32 && 2 * head_ >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + std::ptrdiff_t(head_));
      head_ = 0;
    }
  }

private:
  std::vector<T> items_;
  std::size_t head_ = 0;
};

} // namespace collsim
