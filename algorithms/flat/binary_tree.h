// NCCL's binary tree over ranks 0..p-1, rooted at 0: rank r > 0 with lowest
// set bit b hangs under (r ^ b) | 2b, or under r ^ b when that is >= p. Every
// rank has at most two children, the depth is about log2 p, and with labels
// mirrored (p-1-r) the leaves of one tree are mostly the inner ranks of the
// other: the "double binary tree".
#pragma once

#include <vector>

namespace collsim {

class BinaryTree {
public:
  // label[r] is rank r's position in the tree (a permutation of 0..p-1).
  explicit BinaryTree(std::vector<int> label);
  int parent(int rank) const { return parent_[rank]; }              // -1 at the root
  const std::vector<int>& children(int rank) const { return children_[rank]; }
  int depth() const { return depth_; }

private:
  std::vector<int> parent_;
  std::vector<std::vector<int>> children_;
  int depth_ = 0;
};

} // namespace collsim
