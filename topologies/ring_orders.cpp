#include "topologies/ring_orders.h"

#include <algorithm>

namespace collsim {
namespace {

constexpr long long kMaxVisits = 2'000'000;
constexpr std::size_t kMaxCycles = 20'000;

using Capacity = std::vector<std::vector<int>>; // [a][b]: link directions a -> b not yet used by a ring

// Every directed Hamiltonian cycle of the link graph that starts at device 0
// (a pair's links count once here; how many rings a pair carries is the
// packing's business). Gives up past kMaxVisits steps or kMaxCycles cycles.
struct CycleEnumeration {
  int n;
  const Capacity& links;
  std::vector<int> path;
  std::vector<bool> used;
  std::vector<std::vector<int>> cycles;
  long long visits = 0;
  bool complete = true;

  void visit(int at) {
    if (++visits > kMaxVisits || cycles.size() > kMaxCycles) {
      complete = false;
      return;
    }
    if (int(path.size()) == n) {
      if (links[std::size_t(at)][0] > 0) cycles.push_back(path);
      return;
    }
    for (int next = 0; next < n && complete; ++next) {
      if (used[std::size_t(next)] || links[std::size_t(at)][std::size_t(next)] == 0) continue;
      used[std::size_t(next)] = true;
      path.push_back(next);
      visit(next);
      path.pop_back();
      used[std::size_t(next)] = false;
    }
  }
};

// The largest set of cycles (a cycle may be taken more than once) whose
// rings together use no link direction more often than it has links. Each
// device's fewest free directions out bounds how many more rings fit.
struct Packing {
  int n;
  const std::vector<std::vector<int>>& cycles;
  Capacity free;
  int most;
  std::vector<std::size_t> chosen, best;
  long long visits = 0;

  bool fits(const std::vector<int>& c) const {
    for (int i = 0; i < n; ++i)
      if (free[std::size_t(c[std::size_t(i)])][std::size_t(c[std::size_t((i + 1) % n)])] == 0) return false;
    return true;
  }
  void take(const std::vector<int>& c, int d) {
    for (int i = 0; i < n; ++i) free[std::size_t(c[std::size_t(i)])][std::size_t(c[std::size_t((i + 1) % n)])] += d;
  }
  int roomLeft() const {
    int room = 1 << 30;
    for (const auto& row : free) {
      int out = 0;
      for (int f : row) out += f;
      room = std::min(room, out);
    }
    return room;
  }
  void search(std::size_t from) {
    if (chosen.size() > best.size()) best = chosen;
    if (int(best.size()) >= most || ++visits > kMaxVisits) return;
    if (int(chosen.size()) + roomLeft() <= int(best.size())) return;
    for (std::size_t i = from; i < cycles.size(); ++i) {
      if (!fits(cycles[i])) continue;
      take(cycles[i], -1);
      chosen.push_back(i);
      search(i);
      chosen.pop_back();
      take(cycles[i], +1);
      if (int(best.size()) >= most) return;
    }
  }
};

// Greedy fallback for graphs with too many cycles to enumerate: each ring in
// turn keeps the most free directions on its busiest link.
struct GreedyRing {
  int n;
  Capacity& free;
  std::vector<int> path, best;
  std::vector<bool> used;
  int bestScore = 0;
  long long visits = 0;

  void visit(int at, int score) {
    if (++visits > kMaxVisits) return;
    if (int(path.size()) == n) {
      if (free[std::size_t(at)][0] == 0) return;
      int s = std::min(score, free[std::size_t(at)][0]);
      if (s > bestScore) bestScore = s, best = path;
      return;
    }
    for (int next = 0; next < n; ++next) {
      if (used[std::size_t(next)] || free[std::size_t(at)][std::size_t(next)] == 0) continue;
      int s = std::min(score, free[std::size_t(at)][std::size_t(next)]);
      if (s <= bestScore) continue; // cannot beat the best ring found
      used[std::size_t(next)] = true;
      path.push_back(next);
      visit(next, s);
      path.pop_back();
      used[std::size_t(next)] = false;
    }
  }
};

std::vector<std::vector<int>> greedyRings(int devices, Capacity free, int most) {
  std::vector<std::vector<int>> rings;
  while (int(rings.size()) < most) {
    GreedyRing g{devices, free, {0}, {}, std::vector<bool>(std::size_t(devices), false)};
    g.used[0] = true;
    g.visit(0, 1 << 30);
    if (g.best.empty()) break;
    for (int i = 0; i < devices; ++i) --free[std::size_t(g.best[std::size_t(i)])][std::size_t(g.best[std::size_t((i + 1) % devices)])];
    rings.push_back(g.best);
  }
  return rings;
}

} // namespace

std::vector<std::vector<int>> ringsAlongLinks(int devices, const std::vector<std::pair<int, int>>& links, int most) {
  if (devices < 3 || devices > kMaxRingSearchDevices) return {};
  Capacity free(std::size_t(devices), std::vector<int>(std::size_t(devices), 0));
  for (auto [a, b] : links) ++free[std::size_t(a)][std::size_t(b)], ++free[std::size_t(b)][std::size_t(a)];
  CycleEnumeration e{devices, free, {0}, std::vector<bool>(std::size_t(devices), false), {}};
  e.used[0] = true;
  e.visit(0);
  if (!e.complete) return greedyRings(devices, free, most);
  Packing p{devices, e.cycles, free, most, {}, {}};
  p.search(0);
  std::vector<std::vector<int>> rings;
  for (std::size_t i : p.best) rings.push_back(e.cycles[i]);
  return rings;
}

} // namespace collsim
