#include "algorithms/flat/lockstep_trees.h"

#include <algorithm>

#include "algorithms/flat/double_tree.h"

namespace collsim {

LockstepTrees::LockstepTrees(GroupView g, std::vector<RootedTree> trees, std::vector<Block> ranges, TreeHalves halves)
    : g_(std::move(g)), trees_(std::move(trees)), ranges_(std::move(ranges)), halves_(halves) {
  for (const RootedTree& t : trees_) depth_ = std::max(depth_, t.depth());
}

int LockstepTrees::stepCount(int rank) const {
  if (g_.local(rank) < 0 || g_.size() == 1) return 0;
  return halves_ == TreeHalves::UpAndDown ? 2 * depth_ : depth_;
}

void LockstepTrees::appendOps(int rank, int step, std::vector<Op>& out) const {
  const int i = g_.local(rank);
  if (halves_ == TreeHalves::Down) step += depth_; // the down half's steps, numbered as in the whole
  const bool up = step < depth_;
  for (std::size_t t = 0; t < trees_.size(); ++t) {
    const RootedTree& tree = trees_[t];
    const Block b = ranges_[t];
    const int d = tree.level(i), parent = tree.parent(i);
    const auto children = tree.children(i);
    if (up) {
      if (!children.empty() && step == depth_ - d - 1)
        for (int c : children) g_.emit(out, OpKind::RecvReduce, c, b);
      if (parent >= 0 && step == depth_ - d) g_.emit(out, OpKind::Send, parent, b);
    } else {
      const int k = step - depth_;
      if (parent >= 0 && k == d - 1) g_.emit(out, OpKind::Recv, parent, b);
      if (k == d)
        for (int c : children) g_.emit(out, OpKind::Send, c, b);
    }
  }
}

SchedulePtr lockstepDoubleTreeAllReduce(const GroupView& g, const CollectiveSpec&, TreeHalves halves) {
  const int p = g.size();
  std::vector<RootedTree> trees{binaryTree(labelsFromRoot(p, 0)), binaryTree(mirroredLabels(p))};
  std::vector<Block> ranges{blockOf(g.count(), 2, 0), blockOf(g.count(), 2, 1)};
  return std::make_unique<LockstepTrees>(g, std::move(trees), std::move(ranges), halves);
}

void runsAsLockstepDoubleTree(AlgorithmEntry& e) {
  e.buildAsPhase = [](const GroupView& g, const CollectiveSpec& spec) { return lockstepDoubleTreeAllReduce(g, spec); };
  e.phaseStages = {
      [](const GroupView& g, const CollectiveSpec& spec) { return lockstepDoubleTreeAllReduce(g, spec, TreeHalves::Up); },
      [](const GroupView& g, const CollectiveSpec& spec) { return lockstepDoubleTreeAllReduce(g, spec, TreeHalves::Down); }};
}

} // namespace collsim
