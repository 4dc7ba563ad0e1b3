// How NCCL sizes the chunks of its in-network algorithms, per release: the
// chunk ladders of src/enqueue.cc (NVIDIA/nccl, tags v2.18.6-1 ... v2.27.7-1),
// kept as data. A chunk is what one head (a device of the node) moves per
// channel and loop; smaller chunks mean more pipeline steps for the same
// bytes, each paying the protocol's step cost.
//
// NVLS (one node, or across nodes with CollNet):
//   start at Simple's step (NCCL_BUFFSIZE / NCCL_STEPS, 512 KiB), at most
//   128 KiB (2.18-2.20) or NCCL_NVLS_CHUNKSIZE (2.21+, default 128 KiB);
//   2.19+: at most 32 KiB across nodes when NCCL rates NVLS below 150 GB/s;
//   then 64 KiB below 64 chunks per concurrent op, 32 KiB below 8, 16 KiB
//   below 2 (concurrent ops: channels x heads).
// NVLS tree (across nodes without CollNet):
//   start at Simple's step (2.18-2.20) or NCCL_NVLS_CHUNKSIZE (2.21+);
//   2.19+: at most 64 KiB on 4 nodes or more (2.20+: NCCL_NVLSTREE_MAX_CHUNKSIZE,
//   whose default -2 means this rule); then 256 KiB below 32 chunks per
//   concurrent op, 128 KiB below 16, 64 KiB below 4, 32 KiB below 1.
// Each step of a ladder compares the bytes with the chunk the step before
// left, as NCCL's sequence of `if`s does.
#pragma once

#include "sim/core/units.h"

namespace collsim {

enum class InNetworkPattern { Nvls, NvlsTree };

struct InNetworkChunkInput {
  int minor = 0;           // NCCL 2.x's x; 0: the newest modelled
  InNetworkPattern pattern = InNetworkPattern::Nvls;
  int nodes = 1;
  Bytes bytes = 0;         // the collective's buffer per rank (NCCL's nBytes)
  int channels = 1;        // NVLS channels (NCCL_NVLS_NCHANNELS)
  int heads = 1;           // devices of a node, each a head of its slice
  Bytes nvlsChunk = 128 << 10; // NCCL_NVLS_CHUNKSIZE (read from 2.21)
  Bytes simpleStep = 512 << 10; // NCCL_BUFFSIZE / NCCL_STEPS
  double nvlsRateGBs = 0;  // NCCL's rating of NVLS AllReduce (its `bandwidths`), GB/s
  Bytes treeMaxChunk = 0;  // NCCL_NVLSTREE_MAX_CHUNKSIZE (2.20+); 0: its default rule
};

Bytes ncclInNetworkChunk(const InNetworkChunkInput& in);

} // namespace collsim
