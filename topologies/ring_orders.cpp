#include "topologies/ring_orders.h"

#include <algorithm>

namespace collsim {
namespace {

constexpr long long kMaxVisits = 2'000'000;

struct Search {
  int n;
  std::vector<std::vector<int>> free; // free[a][b]: link directions a -> b not yet used by a ring
  std::vector<int> path, best;
  std::vector<bool> used;
  int bestScore = 0;
  long long visits = 0; // the search gives up past kMaxVisits (a dense graph with no ring)

  // A ring's score: the fewest free directions on any of its links (it
  // needs at least one on each), then how many it leaves in all.
  void visit(int at, int score) {
    if (++visits > kMaxVisits) return;
    if (int(path.size()) == n) {
      if (free[at][0] == 0) return;
      int s = std::min(score, free[at][0]);
      if (s > bestScore) bestScore = s, best = path;
      return;
    }
    for (int next = 0; next < n; ++next) {
      if (used[next] || free[at][next] == 0) continue;
      int s = std::min(score, free[at][next]);
      if (s <= bestScore) continue; // cannot beat the best ring found
      used[next] = true;
      path.push_back(next);
      visit(next, s);
      path.pop_back();
      used[next] = false;
    }
  }
};

} // namespace

std::vector<std::vector<int>> ringsAlongLinks(int devices, const std::vector<std::pair<int, int>>& links, int most) {
  std::vector<std::vector<int>> rings;
  if (devices < 3 || devices > kMaxRingSearchDevices) return rings;
  Search s{devices, std::vector<std::vector<int>>(std::size_t(devices), std::vector<int>(std::size_t(devices), 0)),
           {}, {}, std::vector<bool>(std::size_t(devices), false), 0, 0};
  for (auto [a, b] : links) ++s.free[a][b], ++s.free[b][a];
  while (int(rings.size()) < most) {
    s.bestScore = 0;
    s.visits = 0;
    s.best.clear();
    s.path = {0};
    s.used.assign(std::size_t(devices), false);
    s.used[0] = true;
    s.visit(0, 1 << 30);
    if (s.best.empty()) break;
    for (int i = 0; i < devices; ++i) --s.free[s.best[i]][s.best[(i + 1) % devices]];
    rings.push_back(s.best);
  }
  return rings;
}

} // namespace collsim
