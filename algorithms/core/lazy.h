// Values a schedule works out the first time they are asked for.
//
// A schedule for 262,144 ranks is built whole, but an estimate walks six of
// its ranks, and a server's part of a hierarchy is asked about its own eight:
// what a schedule knows per rank costs time and memory only where it is asked
// for. Thread-safe, as the threads transport asks from every rank's thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>

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

  // Not std::call_once: glibc's wakes waiters with a futex system call on
  // every first call, which was a quarter of `perf --algo all`'s time on a
  // 2x8 cluster. A value is claimed with one compare-and-swap; a thread
  // that finds another computing it yields until it is done (the threads
  // transport's ranks rarely ask for one value at once).
  template <class Compute> const T& get(std::size_t i, Compute&& compute) const {
    Block& b = block(i / kBlock);
    std::atomic<std::uint8_t>& state = b.state[i % kBlock];
    std::uint8_t seen = state.load(std::memory_order_acquire);
    if (seen == kDone) return b.values[i % kBlock];
    if (seen == kEmpty && state.compare_exchange_strong(seen, kComputing, std::memory_order_acquire)) {
      try {
        b.values[i % kBlock] = compute(i);
      } catch (...) {
        state.store(kEmpty, std::memory_order_release); // as call_once: the next caller tries again
        throw;
      }
      state.store(kDone, std::memory_order_release);
      return b.values[i % kBlock];
    }
    while ((seen = state.load(std::memory_order_acquire)) != kDone) {
      if (seen == kEmpty) return get(i, std::forward<Compute>(compute)); // its computer threw
      std::this_thread::yield();
    }
    return b.values[i % kBlock];
  }

private:
  static constexpr std::size_t kBlock = 64;
  static constexpr std::uint8_t kEmpty = 0, kComputing = 1, kDone = 2;
  struct Block {
    std::atomic<std::uint8_t> state[kBlock] = {};
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
