// Percentiles of a stream of samples in bounded memory: every sample is kept
// until the set is full, then every other one is dropped and from then on
// only every 2nd (4th, ...) sample is kept, so the kept ones stay an even
// sample of the stream. Deterministic: no random draws.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace collsim {

template <typename T>
class SampleSet {
public:
  explicit SampleSet(std::size_t capacity = std::size_t(1) << 18) : capacity_(capacity) {}

  void add(T v) {
    max_ = std::max(max_, v);
    ++count_;
    if (++skip_ < stride_) return;
    skip_ = 0;
    if (kept_.size() == capacity_) {
      std::size_t j = 0;
      for (std::size_t i = 0; i < kept_.size(); i += 2) kept_[j++] = kept_[i];
      kept_.resize(j);
      stride_ *= 2;
    }
    kept_.push_back(v);
  }

  // The q-quantile (0 <= q <= 1) of the kept samples; 0 when empty.
  T quantile(double q) const {
    if (kept_.empty()) return T{};
    std::vector<T> v = kept_;
    auto k = std::size_t(q * double(v.size() - 1) + 0.5);
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
    return v[k];
  }
  T max() const { return max_; }
  std::uint64_t count() const { return count_; }

private:
  std::size_t capacity_;
  std::vector<T> kept_;
  std::uint64_t stride_ = 1, skip_ = 0, count_ = 0;
  T max_{};
};

} // namespace collsim
