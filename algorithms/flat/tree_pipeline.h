// One tree moving one range of the buffer in C chunks, pipelined:
//   up   (reduce):    in step k a rank reduces chunk k from its children
//                     and sends chunk k-1 (now complete below it) upwards;
//                     a leaf simply sends chunk k in step k.
//   down (broadcast): in step k a rank receives chunk k from its parent and
//                     sends chunk k-1 on to its children; the root sends
//                     chunk k in step k.
// AllReduce runs up, then down; Broadcast runs down only.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/flat/binary_tree.h"

namespace collsim {

class TreePipeline final : public Schedule {
public:
  TreePipeline(GroupView g, RootedTree tree, Block range, int chunks, bool reduceUp);
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override;
  void appendOps(int rank, int step, std::vector<Op>& out) const override;

private:
  int upSteps(int local) const;
  int downSteps(int local) const;
  Block chunk(int k) const;

  GroupView g_;
  RootedTree tree_;
  Block range_;
  int chunks_;
  bool reduceUp_;
};

} // namespace collsim
