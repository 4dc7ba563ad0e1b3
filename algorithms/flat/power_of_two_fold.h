// Folding a group onto a power of two, as MPICH and HCCL do for recursive
// halving/doubling on p ranks that are not a power of two.
//
// With p' = 2^floor(log2 p) and r = p - p', the first 2r local ranks pair
// up: the even one of each pair hands its data to the odd one first and
// sits out ("folds out"); the odd ones and the ranks from 2r on are the p'
// participants, numbered 0..p'-1 in order. At the end the odd rank of each
// pair sends the result back to its even partner.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

struct PowerOfTwoFold {
  int p;       // group size
  int p2;      // largest power of two <= p
  int extra;   // p - p2

  explicit PowerOfTwoFold(int groupSize) : p(groupSize), p2(1), extra(0) {
    while (p2 * 2 <= p) p2 *= 2;
    extra = p - p2;
  }
  int rounds() const { // log2(p2)
    int k = 0;
    while ((1 << k) < p2) ++k;
    return k;
  }
  bool foldsOut(int local) const { return local < 2 * extra && local % 2 == 0; }
  bool absorbs(int local) const { return local < 2 * extra && local % 2 == 1; }
  // Participant number of a local rank, -1 if it folds out.
  int participant(int local) const {
    if (foldsOut(local)) return -1;
    return local < 2 * extra ? local / 2 : local - extra;
  }
  int localOf(int participant) const { return participant < extra ? 2 * participant + 1 : participant + extra; }
  // Steps of a local rank when the participants run `core` steps: a rank
  // that folds out sends and receives once; its partner adds those two.
  int steps(int local, int core) const {
    if (local < 0) return 0;
    if (foldsOut(local)) return 2;
    return core + (absorbs(local) ? 2 : 0);
  }
  // Recursive halving, step k = 0..rounds()-1: a participant holds a range
  // of `2 * size` participant blocks, keeps half of it and gives the other
  // half to its partner nr ^ size (the highest bit first).
  struct Halving {
    int partner, keep, give, size;
  };
  Halving halving(int nr, int k) const {
    int size = p2 >> (k + 1);
    int lo = nr & ~(2 * size - 1);
    bool lower = (nr & size) == 0;
    return {nr ^ size, lower ? lo : lo + size, lower ? lo + size : lo, size};
  }
  // Recursive doubling, step k = 0..rounds()-1: a participant holds the
  // aligned range of 2^k participant blocks around it and swaps it with its
  // partner nr ^ 2^k, whose range is the neighbouring one.
  Halving doubling(int nr, int k) const {
    int size = 1 << k;
    int partner = nr ^ size;
    return {partner, nr & ~(size - 1), partner & ~(size - 1), size};
  }

  // The first local rank whose block a participant is responsible for (in
  // ReduceScatter/AllGather a participant of a pair stands for both).
  int firstRankOf(int participant) const {
    if (participant >= p2) return p;
    return participant < extra ? 2 * participant : participant + extra;
  }
  // The blocks (of g cut into p) that participants [first, first + n) stand for.
  Block participantBlocks(const GroupView& g, int first, int n) const {
    int a = firstRankOf(first), b = firstRankOf(first + n);
    return g.span(g.size(), a, b - a);
  }
  // Cost of RHD ReduceScatter/AllGather: exact for p = 2^k; otherwise an
  // estimate, since a pair's participant swaps unequal halves.
  static double halfCost(int p, double n, const CostModel& m, bool reduce) {
    PowerOfTwoFold f(p);
    double q = f.p2, folds = f.extra > 0 ? 1 : 0;
    return (f.rounds() + 2 * folds) * m.alpha + ((q - 1) / q + folds * (1 + 1.0 / p)) * n * m.beta +
           (reduce ? ((q - 1) / q + folds) * n * m.gamma : 0);
  }
};

} // namespace collsim
