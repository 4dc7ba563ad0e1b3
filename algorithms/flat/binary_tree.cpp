#include "algorithms/flat/binary_tree.h"

#include <algorithm>

namespace collsim {

RootedTree::RootedTree(std::vector<int> parent) : parent_(std::move(parent)) {
  const int p = int(parent_.size());
  children_.assign(std::size_t(p), {});
  for (int r = 0; r < p; ++r)
    if (parent_[r] >= 0) children_[parent_[r]].push_back(r);
  level_.assign(std::size_t(p), 0);
  for (int r = 0; r < p; ++r) {
    for (int q = r; parent_[q] >= 0; q = parent_[q]) ++level_[r];
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
