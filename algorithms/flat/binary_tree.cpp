#include "algorithms/flat/binary_tree.h"

#include <algorithm>

namespace collsim {

RootedTree::RootedTree(std::vector<int> parent) : parent_(std::move(parent)) {
  const int p = int(parent_.size());
  firstChild_.assign(std::size_t(p) + 1, 0);
  for (int r = 0; r < p; ++r)
    if (parent_[r] >= 0) ++firstChild_[std::size_t(parent_[r]) + 1];
  for (int r = 0; r < p; ++r) firstChild_[std::size_t(r) + 1] += firstChild_[std::size_t(r)];
  children_.assign(std::size_t(firstChild_[std::size_t(p)]), 0);
  std::vector<int> filled(firstChild_.begin(), firstChild_.end() - 1);
  for (int r = 0; r < p; ++r) // in rank order, as before
    if (parent_[r] >= 0) children_[std::size_t(filled[std::size_t(parent_[r])]++)] = r;
  // Levels in one pass over the ranks: climb to a rank whose level is known,
  // then fill in the path on the way back (trees span 32,768 servers).
  level_.assign(std::size_t(p), -1);
  std::vector<int> path;
  for (int r = 0; r < p; ++r) {
    int q = r;
    for (; q >= 0 && level_[q] < 0; q = parent_[q]) path.push_back(q);
    int level = q < 0 ? -1 : level_[q];
    for (auto it = path.rbegin(); it != path.rend(); ++it) level_[*it] = ++level;
    path.clear();
    depth_ = std::max(depth_, level_[r]);
  }
}

RootedTree binaryTree(const std::vector<int>& label) {
  const int p = int(label.size());
  std::vector<int> rankAt(std::size_t(p), 0); // position -> rank
  for (int r = 0; r < p; ++r) rankAt[label[r]] = r;
  std::vector<int> parent(std::size_t(p), -1);
  for (int r = 0; r < p; ++r) {
    int x = label[r];
    if (x == 0) continue;
    int bit = x & -x;
    int up = (x ^ bit) | (bit << 1);
    if (up >= p) up = x ^ bit;
    parent[r] = rankAt[up];
  }
  return RootedTree(std::move(parent));
}

} // namespace collsim
