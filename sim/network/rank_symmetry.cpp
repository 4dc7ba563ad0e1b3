#include "sim/network/rank_symmetry.h"

#include <algorithm>

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

} // namespace

RankSymmetry::RankSymmetry(int ranks, std::vector<Digit> digits) : ranks_(ranks), digits_(std::move(digits)) {
  std::sort(digits_.begin(), digits_.end(), [](const Digit& a, const Digit& b) { return a.stride < b.stride; });
  if (digits_.empty()) throw std::invalid_argument("rank symmetry: no digit to move");
  int below = 1; // where the next digit may start: the last one's stride x size
  for (const Digit& g : digits_) {
    if (g.stride < 1 || g.size < 1 || g.unit < 1 || g.size % g.unit != 0 || g.stride % below != 0)
      throw std::invalid_argument("rank symmetry: unit must divide size and stride x size the ranks");
    if (g.law == Law::Xor && (!powerOfTwo(g.size) || !powerOfTwo(g.unit)))
      throw std::invalid_argument("rank symmetry: xor needs powers of two");
    below = g.stride * g.size;
    copies_ *= g.size / g.unit;
  }
  if (ranks % below != 0) throw std::invalid_argument("rank symmetry: unit must divide size and stride x size the ranks");
  representative_.resize(std::size_t(ranks)), index_.resize(std::size_t(ranks));
  for (int rank = 0; rank < ranks; ++rank) {
    int r = rank;
    for (const Digit& g : digits_) r = withDigit(g, r, digit(g, r) % g.unit);
    representative_[std::size_t(rank)] = r;
    index_[std::size_t(rank)] = indexOf(r);
  }
}

// The index counts in mixed radix too, each moved digit's radix cut to its unit.
int RankSymmetry::indexOf(int rank) const {
  int index = 0, scale = 1, below = 1;
  for (const Digit& g : digits_) {
    const int gap = g.stride / below; // the digits between the last moved one and this
    index += rank / below % gap * scale, scale *= gap;
    index += digit(g, rank) * scale, scale *= g.unit;
    below = g.stride * g.size;
  }
  return index + rank / below * scale;
}

int RankSymmetry::representativeAt(int index) const {
  int rank = 0, scale = 1, below = 1;
  for (const Digit& g : digits_) {
    const int gap = g.stride / below;
    rank += index / scale % gap * below, scale *= gap;
    rank += index / scale % g.unit * g.stride, scale *= g.unit;
    below = g.stride * g.size;
  }
  return rank + index / scale * below;
}

int RankSymmetry::toRepresentative(const Digit& g, int d) {
  const int k = d - d % g.unit;
  return g.law == Law::Xor ? k : (g.size - k) % g.size;
}

int RankSymmetry::alongWith(int rank, int other) const {
  for (const Digit& g : digits_) other = apply(g, toRepresentative(g, digit(g, rank)), other);
  return other;
}

namespace {

int generatorsOf(const RankSymmetry::Digit& g) {
  if (g.law == RankSymmetry::Law::Cyclic) return g.unit < g.size ? 1 : 0;
  int n = 0;
  for (int k = g.unit; k < g.size; k *= 2) ++n;
  return n;
}

} // namespace

int RankSymmetry::generators() const {
  int n = 0;
  for (const Digit& g : digits_) n += generatorsOf(g);
  return n;
}

int RankSymmetry::generate(int generator, int rank) const {
  for (const Digit& g : digits_) {
    if (generator < generatorsOf(g)) return apply(g, g.law == Law::Cyclic ? g.unit : g.unit << generator, rank);
    generator -= generatorsOf(g);
  }
  throw std::out_of_range("rank symmetry: no generator " + std::to_string(generator));
}

std::string RankSymmetry::text() const {
  std::string out;
  for (auto g = digits_.rbegin(); g != digits_.rend(); ++g) { // the replicas first: they sit above the TP positions
    if (!out.empty()) out += "; ";
    out += std::to_string(g->unit) + " of " + std::to_string(g->size) + " " + g->name +
           (g->unit == 1 ? " stands" : " stand") + " for all (" + g->letter +
           (g->law == Law::Cyclic ? " -> " + std::string(1, g->letter) + " + " : " -> " + std::string(1, g->letter) + " xor ") +
           std::to_string(g->unit) + ")";
  }
  return out;
}

} // namespace collsim
