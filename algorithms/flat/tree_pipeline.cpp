#include "algorithms/flat/tree_pipeline.h"

namespace collsim {

TreePipeline::TreePipeline(GroupView g, RootedTree tree, Block range, int chunks, bool reduceUp)
    : g_(std::move(g)), tree_(std::move(tree)), range_(range), chunks_(chunks), reduceUp_(reduceUp) {}

Block TreePipeline::chunk(int k) const {
  Block b = blockOf(range_.count, chunks_, k);
  return {range_.first + b.first, b.count};
}

// A rank with children needs C+1 steps (receive chunk k, send chunk k-1);
// the root only receives (C steps) and a leaf only sends (C steps).
int TreePipeline::upSteps(int i) const {
  if (!reduceUp_ || g_.size() == 1) return 0;
  bool inner = !tree_.children(i).empty(), root = tree_.parent(i) < 0;
  return inner && !root ? chunks_ + 1 : chunks_;
}

int TreePipeline::downSteps(int i) const {
  if (g_.size() == 1) return 0;
  bool inner = !tree_.children(i).empty(), root = tree_.parent(i) < 0;
  return inner && !root ? chunks_ + 1 : chunks_;
}

int TreePipeline::stepCount(int rank) const {
  int i = g_.local(rank);
  return i < 0 ? 0 : upSteps(i) + downSteps(i);
}

void TreePipeline::appendOps(int rank, int step, std::vector<Op>& out) const {
  int i = g_.local(rank), parent = tree_.parent(i);
  const auto children = tree_.children(i);
  bool up = step < upSteps(i);
  int k = up ? step : step - upSteps(i);
  // Whether this rank receives in this phase, and so forwards one step late.
  bool receives = up ? !children.empty() : parent >= 0;
  int forward = receives ? k - 1 : k; // chunk sent on in step k
  if (receives && k < chunks_) {
    if (up)
      for (int c : children) g_.emit(out, OpKind::RecvReduce, c, chunk(k));
    else
      g_.emit(out, OpKind::Recv, parent, chunk(k));
  }
  if (forward >= 0 && forward < chunks_) {
    if (up && parent >= 0) g_.emit(out, OpKind::Send, parent, chunk(forward));
    if (!up)
      for (int c : children) g_.emit(out, OpKind::Send, c, chunk(forward));
  }
}

} // namespace collsim
