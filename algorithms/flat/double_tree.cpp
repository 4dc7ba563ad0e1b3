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
#include "algorithms/flat/lockstep_trees.h"
#include "algorithms/flat/tree_pipeline.h"

namespace collsim {

int doubleTreeChunks(double bytes) {
  return int(std::clamp(std::ceil(bytes / 65536.0), 1.0, 64.0));
}

// NCCL's tree chunk (enqueue.cc, Simple): the library's chunk, halved while
// the tree would get fewer than 8 x depth chunks (down to 128 KiB), 4 x
// depth (64 KiB) and depth (32 KiB), so that mid sizes still fill the
// pipeline. NCCL halves Simple's only; here every protocol's (LL's 32 KiB is
// below the thresholds, LL128's 576,000 B is not).
int treeChunks(double bytes, int depth, std::uint64_t chunkBytes) {
  if (chunkBytes == 0) return doubleTreeChunks(bytes);
  double c = double(chunkBytes);
  while (bytes / c < depth * 8.0 && c > 131072) c /= 2;
  while (bytes / c < depth * 4.0 && c > 65536) c /= 2;
  while (bytes / c < depth && c > 32768) c /= 2;
  return int(std::max(1.0, std::ceil(bytes / c)));
}

SchedulePtr halvesOnTwoTrees(const GroupView& g, RootedTree a, RootedTree b, bool reduceUp, const CollectiveSpec& spec) {
  Block h0 = blockOf(g.count(), 2, 0), h1 = blockOf(g.count(), 2, 1);
  int chunks = treeChunks(double(h0.count * g.elemSize()), std::max(a.depth(), b.depth()), spec.chunkBytes);
  std::vector<SchedulePtr> parts;
  parts.push_back(std::make_unique<TreePipeline>(g, std::move(a), h0, chunks, reduceUp));
  parts.push_back(std::make_unique<TreePipeline>(g, std::move(b), h1, chunks, reduceUp));
  return std::make_unique<StreamsSchedule>(std::move(parts));
}

std::vector<int> mirroredLabels(int p) {
  std::vector<int> second(std::size_t(p), 0);
  for (int i = 0; i < p; ++i) second[i] = p % 2 == 0 ? p - 1 - i : wrap(i - 1, p);
  return second;
}

std::vector<int> labelsFromRoot(int p, int root) {
  std::vector<int> l(std::size_t(p), 0);
  for (int i = 0; i < p; ++i) l[i] = wrap(i - root, p);
  return l;
}

namespace {

// The same, with every non-root position moved on by one (1..p-1 cyclically).
std::vector<int> fromRootShifted(int p, int root) {
  std::vector<int> l = labelsFromRoot(p, root);
  for (int& x : l)
    if (x != 0) x = x % (p - 1) + 1;
  return l;
}

int treeDepth(int p) { return binaryTree(labelsFromRoot(p, 0)).depth(); }

double pipelineSteps(int p, double n) { return treeDepth(p) + doubleTreeChunks(n / 2) - 1; }

} // namespace

SchedulePtr doubleTreeAllReduce(const GroupView& g, const CollectiveSpec& spec) {
  int p = g.size();
  return halvesOnTwoTrees(g, binaryTree(labelsFromRoot(p, 0)), binaryTree(mirroredLabels(p)), true, spec);
}

SchedulePtr doubleTreeBroadcast(const GroupView& g, const CollectiveSpec& spec) {
  int p = g.size();
  return halvesOnTwoTrees(g, binaryTree(labelsFromRoot(p, spec.root)), binaryTree(fromRootShifted(p, spec.root)), false, spec);
}

AlgorithmEntry doubleTreeAllReduceEntry() {
  AlgorithmEntry e{Collective::AllReduce,
          "dbtree",
          "NCCL double binary tree: each half reduced up and broadcast down its own tree, pipelined",
          "2 (D + C - 1) (a + n/(2C) b) + about (D + C - 1) (n/C) g, D = tree depth, C = chunks per tree "
          "(estimate at p = 3)",
          [](const GroupView& g, const CollectiveSpec& spec) { return doubleTreeAllReduce(g, spec); },
          [](int p, double n, const CostModel& m) {
            if (p == 1) return 0.0;
            double c = doubleTreeChunks(n / 2), steps = pipelineSteps(p, n);
            return 2 * steps * (m.alpha + n / (2 * c) * m.beta) + steps * (n / c) * m.gamma;
          },
          anyRankCount, /*pipelinesChunks=*/true};
  runsAsLockstepDoubleTree(e);
  return e;
}

AlgorithmEntry doubleTreeBroadcastEntry() {
  return {Collective::Broadcast,
          "dbtree",
          "two trees rooted at the root each carry half of the buffer down, pipelined",
          "(D + C - 1) (a + n/(2C) b), D = tree depth, C = chunks per tree",
          [](const GroupView& g, const CollectiveSpec& spec) { return doubleTreeBroadcast(g, spec); },
          [](int p, double n, const CostModel& m) {
            if (p == 1) return 0.0;
            double c = doubleTreeChunks(n / 2);
            if (p == 2) return m.alpha + n * m.beta;
            return pipelineSteps(p, n) * (m.alpha + n / (2 * c) * m.beta);
          },
          anyRankCount, /*pipelinesChunks=*/true};
}

} // namespace collsim
