#include "algorithms/flat/binary_tree.h"

#include <algorithm>

namespace collsim {

BinaryTree::BinaryTree(std::vector<int> label) {
  const int p = int(label.size());
  std::vector<int> rankAt(std::size_t(p), 0); // position -> rank
  for (int r = 0; r < p; ++r) rankAt[label[r]] = r;
  parent_.assign(std::size_t(p), -1);
  children_.assign(std::size_t(p), {});
  for (int r = 0; r < p; ++r) {
    int x = label[r];
    if (x == 0) continue;
    int bit = x & -x;
    int up = (x ^ bit) | (bit << 1);
    if (up >= p) up = x ^ bit;
    parent_[r] = rankAt[up];
  }
  for (int r = 0; r < p; ++r)
    if (parent_[r] >= 0) children_[parent_[r]].push_back(r);
  for (int r = 0; r < p; ++r) {
    int d = 0;
    for (int q = r; parent_[q] >= 0; q = parent_[q]) ++d;
    depth_ = std::max(depth_, d);
  }
}

} // namespace collsim
