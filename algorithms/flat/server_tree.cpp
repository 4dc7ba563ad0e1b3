// NCCL's tree AllReduce across servers ("tree", nccl-facts.md).
//
// Inside each server the devices form a chain; between servers, the chains'
// heads form NCCL's double binary tree. Half of the buffer is reduced up
// tree A and broadcast back down it, the other half on tree B at the same
// time, both pipelined in chunks (tree_pipeline.h):
//   tree A: chain 0 -> 1 -> ... -> D-1 in each server (device 0 at its head,
//           where the network tree attaches), servers on the binary tree
//           rooted at server 0;
//   tree B: the chains reversed (device D-1 at the head), servers on the
//           mirrored binary tree, so the halves cross the network through
//           different NICs and, between two servers, in opposite directions.
// A head hangs its own chain and up to two servers below it (NCCL's tree
// arity 3). Channels rotate the chains, so each channel's heads are other
// devices with other NICs. On one server, or on a group that is not the
// whole cluster (a level of a hierarchical algorithm, one member per
// server), it is the chain or the double binary tree alone.
//
// Depth: D - 1 inside a server plus the binary tree's depth between servers.
// Cost on one server (a chain, depth p - 1) with C chunks of n/(2C) bytes per
// tree, when the two chains do not share links (a full mesh), as dbtree's:
//   2 (p - 1 + C - 1) (a + n/(2C) b) + about (p - 1 + C - 1) (n/C) g.
#include <algorithm>

#include "algorithms/core/compose.h"
#include "algorithms/flat/double_tree.h"
#include "algorithms/flat/lockstep_trees.h"

namespace collsim {
namespace {

// Parents of ranks s*D + j: the chain up to its head (j = 0 in `chain`
// order), the head under the head of its parent server in `servers`.
RootedTree chainsUnder(const RootedTree& servers, int S, int D, bool reversed) {
  std::vector<int> parent(std::size_t(S * D), -1);
  auto rankAt = [&](int s, int position) { return s * D + (reversed ? D - 1 - position : position); };
  for (int s = 0; s < S; ++s) {
    for (int j = 1; j < D; ++j) parent[rankAt(s, j)] = rankAt(s, j - 1);
    if (servers.parent(s) >= 0) parent[rankAt(s, 0)] = rankAt(servers.parent(s), 0);
  }
  return RootedTree(std::move(parent));
}

SchedulePtr serverTreeAllReduce(const GroupView& g, const CollectiveSpec& spec) {
  int p = g.size(), D = spec.devicesPerServer;
  if (g.size() != spec.ranks || D <= 0 || p % D) D = g.size() == spec.ranks ? p : 1;
  int S = p / D;
  RootedTree a = chainsUnder(binaryTree(labelsFromRoot(S, 0)), S, D, false);
  RootedTree b = chainsUnder(binaryTree(mirroredLabels(S)), S, D, true);
  return halvesOnTwoTrees(g, std::move(a), std::move(b), true, spec);
}

} // namespace

AlgorithmEntry serverTreeAllReduceEntry() {
  AlgorithmEntry e{Collective::AllReduce,
          "tree",
          "NCCL's tree: a chain through each server, double binary tree between servers, halves pipelined",
          "2 (p + C - 2) (a + n/(2C) b) + about (p + C - 2) (n/C) g on one server (a chain); across S servers of D "
          "devices the depth p - 1 becomes D - 1 plus the servers' tree depth",
          serverTreeAllReduce,
          [](int p, double n, const CostModel& m) {
            if (p == 1) return 0.0;
            double c = doubleTreeChunks(n / 2), steps = p - 1 + c - 1;
            return 2 * steps * (m.alpha + n / (2 * c) * m.beta) + steps * (n / c) * m.gamma;
          },
          anyRankCount, /*pipelinesChunks=*/true};
  // A phase between servers (one member each): the double binary tree, each
  // half whole (NCCL's NVLS tree under hierpipe:nvls+tree).
  runsAsLockstepDoubleTree(e);
  return e;
}

} // namespace collsim
