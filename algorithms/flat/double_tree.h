// Double binary tree algorithms (NCCL): half of the data goes through each
// of two complementary binary trees, cut into chunks that are pipelined
// through the tree.
#pragma once

#include "algorithms/core/group_view.h"
#include "algorithms/core/registry.h"

namespace collsim {

SchedulePtr doubleTreeAllReduce(const GroupView& g);
SchedulePtr doubleTreeBroadcast(const GroupView& g, int root);

AlgorithmEntry doubleTreeAllReduceEntry();
AlgorithmEntry doubleTreeBroadcastEntry();

// Chunks per tree for a view of `bytes`: about 64 KiB each, 1 to 64 of them.
int doubleTreeChunks(double bytes);

} // namespace collsim
