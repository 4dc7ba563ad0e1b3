// Double binary tree algorithms (NCCL): half of the data goes through each
// of two complementary trees, cut into chunks that are pipelined through
// the tree. dbtree spans all ranks with binary trees; tree (server_tree.cpp)
// is NCCL's multi-node tree: a chain through each server, binary trees
// between servers.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"
#include "algorithms/flat/binary_tree.h"

namespace collsim {

SchedulePtr doubleTreeAllReduce(const GroupView& g, const CollectiveSpec& spec);
SchedulePtr doubleTreeBroadcast(const GroupView& g, const CollectiveSpec& spec);

AlgorithmEntry doubleTreeAllReduceEntry();
AlgorithmEntry doubleTreeBroadcastEntry();
AlgorithmEntry serverTreeAllReduceEntry();

// Chunks per tree for a view of `bytes`: about 64 KiB each, 1 to 64 of them.
int doubleTreeChunks(double bytes);
// Chunks per tree of `depth` for `bytes` under a library chunk of
// `chunkBytes` (NCCL's rule), or doubleTreeChunks without one.
int treeChunks(double bytes, int depth, std::uint64_t chunkBytes);
// Half of `g` up and/or down `a`, the other half on `b`: two streams.
SchedulePtr halvesOnTwoTrees(const GroupView& g, RootedTree a, RootedTree b, bool reduceUp, const CollectiveSpec& spec);
// The labels of the second tree: mirrored (p-1-x) for even p, shifted by one
// for odd p, so that the two trees' inner ranks differ.
std::vector<int> mirroredLabels(int p);
// Labels 0..p-1 counted from `root`.
std::vector<int> labelsFromRoot(int p, int root);

} // namespace collsim
