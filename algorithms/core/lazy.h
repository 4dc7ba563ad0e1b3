// Values a schedule works out the first time they are asked for.
//
// A schedule for 262,144 ranks is built whole, but an estimate walks six of
// its ranks, and a server's part of a hierarchy is asked about its own eight:
// what a schedule knows per rank costs time and memory only where it is asked
// for. Thread-safe, as the threads transport asks from every rank's thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

namespace collsim {

// values[i] = compute(i), computed on the first get(i). Storage comes in
// blocks of neighbouring indices, allocated when one of them is first asked
// for (a server's ranks are neighbours).
template <class T> class LazyValues {
public:
  explicit LazyValues(std::size_t n) : blocks_(new std::atomic<Block*>[n / kBlock + 1]), count_(n / kBlock + 1) {
    for (std::size_t b = 0; b < count_; ++b) blocks_[b].store(nullptr, std::memory_order_relaxed);
  }
  ~LazyValues() {
    for (std::size_t b = 0; b < count_; ++b) delete blocks_[b].load(std::memory_order_relaxed);
  }
  LazyValues(const LazyValues&) = delete;
  LazyValues& operator=(const LazyValues&) = delete;

  template <class Compute> const T& get(std::size_t i, Compute&& compute) const {
    Block& b = block(i / kBlock);
    std::call_once(b.done[i % kBlock], [&] { b.values[i % kBlock] = compute(i); });
    return b.values[i % kBlock];
  }

private:
  static constexpr std::size_t kBlock = 64;
  struct Block {
    std::once_flag done[kBlock];
    T values[kBlock];
  };
  Block& block(std::size_t b) const {
    Block* p = blocks_[b].load(std::memory_order_acquire);
    if (p) return *p;
    auto fresh = std::make_unique<Block>();
    if (blocks_[b].compare_exchange_strong(p, fresh.get(), std::memory_order_acq_rel)) return *fresh.release();
    return *p; // another thread's block came first
  }

  std::unique_ptr<std::atomic<Block*>[]> blocks_;
  std::size_t count_;
};

} // namespace collsim
