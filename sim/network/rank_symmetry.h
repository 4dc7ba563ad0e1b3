// A symmetry of a run: a group of rank permutations under which the
// cluster, its routes and every rank's program look the same, so that one
// rank of each class (orbit) can be simulated for all of them, exactly
// (#40). In a TP x PP x DP layout on a symmetric fabric, the DP replicas
// run the same programs and see the same network.
//
// The groups here move one digit of a rank's mixed-radix number, the
// replica index d (rank = low + stride d + stride size high), by multiples
// of `unit`: d -> d + k mod size (Cyclic: a ring's step i -> i + 1 is the
// same everywhere) or d -> d xor k (Xor: recursive halving-doubling pairs
// i with i xor 2^j). The representatives are the ranks with d < unit; each
// class has size / unit members (copies).
//
// foldChannels maps every link direction of the cluster onto its class's
// representative, once it has checked that the group's generators are
// automorphisms of the cluster (servers onto servers, links onto links of
// the same kind and figures) and that every class of links has as many
// members as a class of ranks. A message between representatives then
// crosses the representatives of the channels it would cross, and each
// representative channel carries, up to the symmetry, what each member
// carries (ScheduleExecutor, LinkNetwork::fold; channel_fold.cpp). Links between fabric
// switches (spines) stay where they are: one of them would carry every
// replica's traffic, so a route over one breaks the symmetry (a rail
// fabric's replicas meet on their rail switches and never use them).
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
  // Throws std::invalid_argument unless unit divides size, size x stride
  // divides ranks, and (Xor) both are powers of two.
  RankSymmetry(int ranks, int stride, int size, int unit, Law law);

  int ranks() const { return ranks_; }
  int copies() const { return size_ / unit_; }
  int representatives() const { return ranks_ / copies(); }
  Law law() const { return law_; }
  int unit() const { return unit_; }
  int size() const { return size_; }

  bool isRepresentative(int rank) const { return digit(rank) < unit_; }
  int representative(int rank) const { return withDigit(rank, digit(rank) % unit_); }
  // Representatives numbered 0 .. representatives() - 1, in rank order.
  int representativeIndex(int representativeRank) const;
  int representativeAt(int index) const;
  // The image of `other` under the element that takes `rank` to its
  // representative.
  int alongWith(int rank, int other) const { return apply(toRepresentative(rank), other); }
  // The generators of the group (Cyclic: + unit; Xor: xor unit, 2 unit, ...).
  int generators() const;
  int generate(int generator, int rank) const;
  // "replicas 0 of 16 stand for all (d -> d + 1)" style.
  std::string text() const;

private:
  int digit(int rank) const { return rank / stride_ % size_; }
  int withDigit(int rank, int d) const { return rank + (d - digit(rank)) * stride_; }
  int toRepresentative(int rank) const; // the element, as the k of apply
  int apply(int k, int rank) const {
    int d = digit(rank);
    return withDigit(rank, law_ == Law::Cyclic ? (d + k) % size_ : d ^ k);
  }

  int ranks_, stride_, size_, unit_;
  Law law_;
};

// The representative channel of every channel (2i: link i from a to b,
// 2i + 1 back), when the symmetry's generators are automorphisms of the
// cluster; else nothing, with the reason in `why`.
// A channel between fabric switches: its fold is itself with this bit set.
inline constexpr std::uint32_t kFixedChannel = 1u << 31;
std::optional<std::vector<std::uint32_t>> foldChannels(const Cluster& cluster, const RankSymmetry& symmetry,
                                                        std::string& why);

// A run under a symmetry met something that breaks it (a route with a choice
// of paths, an in-network send to a rank the run does not simulate): the
// caller runs again without it.
struct SymmetryBroken : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace collsim
