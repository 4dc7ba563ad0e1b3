// Trees over ranks 0..p-1 for tree collectives.
//
// RootedTree is any tree given by each rank's parent. binaryTree builds
// NCCL's binary tree, rooted at label 0: label x > 0 with lowest set bit b
// hangs under (x ^ b) | 2b, or under x ^ b when that is >= p. Every rank has
// at most two children, the depth is about log2 p, and with labels mirrored
// (p-1-x) the leaves of one tree are mostly the inner ranks of the other:
// the "double binary tree".
#pragma once

#include <span>
#include <vector>

namespace collsim {

class RootedTree {
public:
  // parent[r] is rank r's parent, -1 at the (one) root.
  explicit RootedTree(std::vector<int> parent);
  int parent(int rank) const { return parent_[rank]; }
  std::span<const int> children(int rank) const {
    return {children_.data() + firstChild_[rank], children_.data() + firstChild_[rank + 1]};
  }
  int depth() const { return depth_; } // edges from the deepest rank to the root
  int level(int rank) const { return level_[rank]; } // edges from `rank` to the root

private:
  std::vector<int> parent_;
  std::vector<int> children_;   // rank r's children: children_[firstChild_[r] .. firstChild_[r + 1])
  std::vector<int> firstChild_; // (one array, not one per rank: trees span 32,768 servers)
  std::vector<int> level_;
  int depth_ = 0;
};

// label[r] is rank r's position in the tree (a permutation of 0..p-1).
RootedTree binaryTree(const std::vector<int>& label);

} // namespace collsim
