#include "sim/network/rank_symmetry.h"

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

} // namespace

RankSymmetry::RankSymmetry(int ranks, int stride, int size, int unit, Law law)
    : ranks_(ranks), stride_(stride), size_(size), unit_(unit), law_(law) {
  if (stride < 1 || size < 1 || unit < 1 || size % unit != 0 || ranks % (stride * size) != 0)
    throw std::invalid_argument("rank symmetry: unit must divide size and stride x size the ranks");
  if (law == Law::Xor && (!powerOfTwo(size) || !powerOfTwo(unit)))
    throw std::invalid_argument("rank symmetry: xor needs powers of two");
}

int RankSymmetry::representativeIndex(int rank) const {
  const int low = rank % stride_, high = rank / (stride_ * size_);
  return low + stride_ * (digit(rank) + unit_ * high);
}

int RankSymmetry::representativeAt(int index) const {
  const int low = index % stride_, d = index / stride_ % unit_, high = index / (stride_ * unit_);
  return low + stride_ * (d + size_ * high);
}

int RankSymmetry::toRepresentative(int rank) const {
  const int k = digit(rank) - digit(rank) % unit_;
  return law_ == Law::Xor ? k : (size_ - k) % size_;
}

int RankSymmetry::generators() const {
  if (law_ == Law::Cyclic) return 1;
  int n = 0;
  for (int k = unit_; k < size_; k *= 2) ++n;
  return n;
}

int RankSymmetry::generate(int generator, int rank) const {
  return apply(law_ == Law::Cyclic ? unit_ : unit_ << generator, rank);
}

std::string RankSymmetry::text() const {
  return std::to_string(unit_) + " of " + std::to_string(size_) + (unit_ == 1 ? " replicas stands" : " replicas stand") +
         " for all (" +
         (law_ == Law::Cyclic ? "d -> d + " : "d -> d xor ") + std::to_string(unit_) + ")";
}

} // namespace collsim
