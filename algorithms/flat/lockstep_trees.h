// Trees that each carry one range of the buffer, whole (not pipelined), in
// lockstep on one stream: an AllReduce reduced up every tree and broadcast
// back down.
//
// A tree in pieces (tree_pipeline.h) needs a stream per tree, and a phase of
// a hierarchical algorithm must be one stream. Inside a pipelined hierarchy
// (hierpipe) the slices already pipeline the data, so the phase between
// servers can move each slice whole: NCCL's NVLS tree, whose heads reduce
// and broadcast each NVLS chunk over the double binary tree.
//
// Steps are the trees' levels, the same index on both ends of a message, so
// that every tree's messages of a pair of ranks are posted in one order on
// both sides: with H the deepest tree's depth, a rank at level d (edges to
// its root) sends up in step H - d, after receiving and reducing its
// children's (level d + 1) in step H - d - 1; in step H + d it sends down to
// its children, which receive there, having received from their parent in
// step H + d - 1. 2H steps in all, some empty on some ranks.
//
// A pipeline over slices (core/pipeline.h) may run the two halves as stages
// of their own, the reduce up (steps 0..H-1) and the broadcast down (steps
// H..2H-1): then slice k+1 climbs the trees while slice k comes down, as in
// NCCL's NVLS tree, whose heads below the root reduce and send up with one
// group of warps and receive and broadcast down with another (2.26's
// src/device/all_reduce.h, RunWorkColl<..., NCCL_ALGO_NVLS_TREE, ...>:
// "Reduce, send to network" and "Recv from network, broadcast"). Each half
// alone is H steps, numbered as in the whole.
#pragma once

#include <vector>

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"
#include "algorithms/flat/binary_tree.h"

namespace collsim {

// Which of the AllReduce's directions a schedule runs.
enum class TreeHalves { UpAndDown, Up, Down };

class LockstepTrees final : public Schedule {
public:
  // Tree t carries `ranges[t]` (elements of the view).
  LockstepTrees(GroupView g, std::vector<RootedTree> trees, std::vector<Block> ranges,
                TreeHalves halves = TreeHalves::UpAndDown);
  int ranks() const override { return g_.world(); }
  int stepCount(int rank) const override;
  void appendOps(int rank, int step, std::vector<Op>& out) const override;

private:
  GroupView g_;
  std::vector<RootedTree> trees_;
  std::vector<Block> ranges_;
  TreeHalves halves_;
  int depth_ = 0;
};

// NCCL's double binary tree over the whole view, half on each tree, in
// lockstep: the whole AllReduce, or only its reduce up or its broadcast down.
SchedulePtr lockstepDoubleTreeAllReduce(const GroupView& g, const CollectiveSpec& spec,
                                        TreeHalves halves = TreeHalves::UpAndDown);

// Makes `e` (an AllReduce on trees) run as a phase of a hierarchical
// algorithm on the double binary tree in lockstep: whole, or as its two
// halves, stages of a pipeline.
void runsAsLockstepDoubleTree(AlgorithmEntry& e);

} // namespace collsim
