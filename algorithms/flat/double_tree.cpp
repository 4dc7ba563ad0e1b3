// Double binary tree AllReduce and Broadcast (NCCL style).
//
// AllReduce: the view is cut in two halves. Half 0 is reduced up tree A
// (rooted at rank 0) and broadcast back down it; half 1 does the same on
// tree B at the same time. As in NCCL, tree B is A mirrored (rank p-1-r)
// for even p and A shifted by one rank for odd p, so the two trees never
// push data over the same link in the same direction. Each half
// moves in C chunks pipelined through its tree (tree_pipeline.h), so a rank
// sends about n/2 up and n/2 down per tree it is inner in.
// Broadcast: both trees are rooted at the root and each carries one half
// down. Tree A counts labels from the root; tree B shifts the other ranks'
// labels by one, so that the root's child differs between the trees (a
// mirror around the root would give both trees the same child at p = 8).
//
// The trees are two streams: each advances on its own on every rank.
// Cost, with depth D and C chunks of n/(2C) bytes per tree, when the two
// trees' transfers do not share links (a full mesh): the last chunk leaves
// the leaves at step C-1 and needs D more steps up, and as many down:
//   AllReduce: 2 (D + C - 1) (a + n/(2C) b) + about (D + C - 1) (n/C) g
//   Broadcast: (D + C - 1) (a + n/(2C) b); at p = 2 both halves share the
//   one link, which the two streams keep busy: a + n b.
// At p = 3 both trees are chains and must share one link in one direction
// (NCCL's trees too); there the formula is an estimate.
#include "algorithms/flat/double_tree.h"

#include <algorithm>
#include <cmath>

#include "algorithms/core/compose.h"
#include "algorithms/flat/tree_pipeline.h"

namespace collsim {

int doubleTreeChunks(double bytes) {
  return int(std::clamp(std::ceil(bytes / 65536.0), 1.0, 64.0));
}

namespace {

// Tree positions counted from the root.
std::vector<int> fromRoot(int p, int root) {
  std::vector<int> l(std::size_t(p), 0);
  for (int i = 0; i < p; ++i) l[i] = wrap(i - root, p);
  return l;
}

// The same, with every non-root position moved on by one (1..p-1 cyclically).
std::vector<int> fromRootShifted(int p, int root) {
  std::vector<int> l = fromRoot(p, root);
  for (int& x : l)
    if (x != 0) x = x % (p - 1) + 1;
  return l;
}

SchedulePtr twoTrees(const GroupView& g, BinaryTree a, BinaryTree b, bool reduceUp, std::uint64_t elemBytes) {
  Block h0 = blockOf(g.count(), 2, 0), h1 = blockOf(g.count(), 2, 1);
  int chunks = doubleTreeChunks(double(h0.count * elemBytes));
  std::vector<SchedulePtr> parts;
  parts.push_back(std::make_unique<TreePipeline>(g, std::move(a), h0, chunks, reduceUp));
  parts.push_back(std::make_unique<TreePipeline>(g, std::move(b), h1, chunks, reduceUp));
  return std::make_unique<StreamsSchedule>(std::move(parts));
}

int treeDepth(int p) { return BinaryTree(fromRoot(p, 0)).depth(); }

double pipelineSteps(int p, double n) { return treeDepth(p) + doubleTreeChunks(n / 2) - 1; }

} // namespace

SchedulePtr doubleTreeAllReduce(const GroupView& g) {
  int p = g.size();
  std::vector<int> second(std::size_t(p), 0);
  for (int i = 0; i < p; ++i) second[i] = p % 2 == 0 ? p - 1 - i : wrap(i - 1, p);
  return twoTrees(g, BinaryTree(fromRoot(p, 0)), BinaryTree(second), true, g.elemSize());
}

SchedulePtr doubleTreeBroadcast(const GroupView& g, int root) {
  int p = g.size();
  return twoTrees(g, BinaryTree(fromRoot(p, root)), BinaryTree(fromRootShifted(p, root)), false, g.elemSize());
}

AlgorithmEntry doubleTreeAllReduceEntry() {
  return {Collective::AllReduce,
          "dbtree",
          "NCCL double binary tree: each half reduced up and broadcast down its own tree, pipelined",
          "2 (D + C - 1) (a + n/(2C) b) + about (D + C - 1) (n/C) g, D = tree depth, C = chunks per tree "
          "(estimate at p = 3)",
          [](const GroupView& g, const CollectiveSpec&) { return doubleTreeAllReduce(g); },
          [](int p, double n, const CostModel& m) {
            if (p == 1) return 0.0;
            double c = doubleTreeChunks(n / 2), steps = pipelineSteps(p, n);
            return 2 * steps * (m.alpha + n / (2 * c) * m.beta) + steps * (n / c) * m.gamma;
          },
          anyRankCount};
}

AlgorithmEntry doubleTreeBroadcastEntry() {
  return {Collective::Broadcast,
          "dbtree",
          "two trees rooted at the root each carry half of the buffer down, pipelined",
          "(D + C - 1) (a + n/(2C) b), D = tree depth, C = chunks per tree",
          [](const GroupView& g, const CollectiveSpec& s) { return doubleTreeBroadcast(g, s.root); },
          [](int p, double n, const CostModel& m) {
            if (p == 1) return 0.0;
            double c = doubleTreeChunks(n / 2);
            if (p == 2) return m.alpha + n * m.beta;
            return pipelineSteps(p, n) * (m.alpha + n / (2 * c) * m.beta);
          },
          anyRankCount};
}

} // namespace collsim
