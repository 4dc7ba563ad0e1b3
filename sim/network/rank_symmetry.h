// A symmetry of a run: a group of rank permutations under which the
// cluster, its routes and every rank's program look the same, so that one
// rank of each class (orbit) can be simulated for all of them, exactly
// (#40). In a TP x PP x DP layout on a symmetric fabric, the DP replicas
// run the same programs and see the same network, and so, inside a server
// whose devices are alike, do the positions of a TP group.
//
// The group moves digits of a rank's mixed-radix number: a digit of size
// `size` at `stride` (the replica index d, rank = low + stride d + stride
// size high; or the TP position t), by multiples of its `unit`: d -> d + k
// mod size (Cyclic: a ring's step i -> i + 1 is the same everywhere) or
// d -> d xor k (Xor: recursive halving-doubling pairs i with i xor 2^j).
// Moves of different digits commute, so the group is their product. The
// representatives are the ranks whose every moved digit is below its unit;
// each class has the product of size / unit members (copies).
//
// foldChannels maps every link direction of the cluster onto its class's
// representative, once it has checked that the group's generators are
// automorphisms of the cluster (each moves the nodes so that every link
// lands on a link of the same kind and figures). A message between
// representatives then crosses the representatives of the channels it would
// cross, and each representative channel carries, up to the symmetry, what
// each member carries (ScheduleExecutor, LinkNetwork::fold; channel_fold.cpp):
// exact where a class of links has as many members as a class of ranks. A
// link of a smaller class (a spine of a rail fabric, which a replica shift
// leaves in place) stays where it is: it would carry several members'
// traffic, so a route over it breaks the symmetry (a rail fabric's replicas
// meet on their rail switches and never use them).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

class RankSymmetry {
public:
  enum class Law : std::uint8_t { Cyclic, Xor };
  // One digit the group moves. `name`/`letter` say it in text():
  // "replicas"/'d', "TP positions"/'t'.
  struct Digit {
    int stride, size, unit;
    Law law;
    std::string name = "replicas";
    char letter = 'd';
  };
  // Throws std::invalid_argument unless each unit divides its size, (Xor)
  // both are powers of two, and the digits sit apart inside the ranks: each
  // stride x size divides the next digit's stride and the ranks.
  RankSymmetry(int ranks, std::vector<Digit> digits);
  // One digit: the replicas.
  RankSymmetry(int ranks, int stride, int size, int unit, Law law) : RankSymmetry(ranks, {{stride, size, unit, law}}) {}

  int ranks() const { return ranks_; }
  int copies() const { return copies_; }
  int representatives() const { return ranks_ / copies_; }
  const std::vector<Digit>& digits() const { return digits_; }

  bool isRepresentative(int rank) const { return representative(rank) == rank; }
  // Looked up for every message a run posts: tables, one entry a rank.
  int representative(int rank) const { return representative_[std::size_t(rank)]; }
  // Representatives numbered 0 .. representatives() - 1, in rank order.
  int representativeIndex(int representativeRank) const { return index_[std::size_t(representativeRank)]; }
  int representativeAt(int index) const;
  // The image of `other` under the element that takes `rank` to its
  // representative.
  int alongWith(int rank, int other) const;
  // The generators of the group, digit by digit (Cyclic: + unit; Xor: xor
  // unit, 2 unit, ...).
  int generators() const;
  int generate(int generator, int rank) const;
  // "1 of 16 replicas stands for all (d -> d + 1)" style, digit by digit.
  std::string text() const;

private:
  static int digit(const Digit& g, int rank) { return rank / g.stride % g.size; }
  static int withDigit(const Digit& g, int rank, int d) { return rank + (d - digit(g, rank)) * g.stride; }
  // The move of `g` by k that takes digit value d to d mod unit.
  static int toRepresentative(const Digit& g, int d);
  static int apply(const Digit& g, int k, int rank) {
    const int d = digit(g, rank);
    return withDigit(g, rank, g.law == Law::Cyclic ? (d + k) % g.size : d ^ k);
  }

  int indexOf(int representativeRank) const;

  int ranks_, copies_ = 1;
  std::vector<Digit> digits_; // by stride
  std::vector<int> representative_, index_; // by rank: its representative, and that one's index
};

// The representative channel of every channel (2i: link i from a to b,
// 2i + 1 back), when the symmetry's generators are automorphisms of the
// cluster; else nothing, with the reason in `why`.
// A channel of a smaller class: its fold is itself with this bit set.
inline constexpr std::uint32_t kFixedChannel = 1u << 31;
// `pairs`: ranks that will talk, whose routes are tried too (a route with a
// choice of paths breaks the fold: better found here than in the run).
std::optional<std::vector<std::uint32_t>> foldChannels(const Cluster& cluster, const RankSymmetry& symmetry,
                                                        std::string& why,
                                                        const std::vector<std::pair<int, int>>& pairs = {});

// A run under a symmetry met something that breaks it (a route with a choice
// of paths, an in-network send to a rank the run does not simulate): the
// caller runs again without it.
struct SymmetryBroken : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace collsim
