// Chunk loops: a collective library moves a large buffer through its
// fixed-size staging buffers in loops (NCCL: loops of ranks x chunk bytes per
// channel, each a full run of the algorithm; HCCL: loops of HCCL_BUFFSIZE).
// Each loop is the algorithm on the next slice of the buffer; a rank starts
// loop k+1 as soon as it has finished its own steps of loop k, so loops
// overlap across ranks as the library's do. The last loop takes what is
// left, split the same way (as NCCL's does).
//
// AllReduce only: its result does not depend on how the buffer is cut.
// ReduceScatter and AllGather would need each loop to take a slice of every
// rank's block (a view with a layout); they run in one loop for now.
// Algorithms that pipeline pieces of the buffer on streams of their own
// (AlgorithmEntry::pipelinesChunks: trees, nvls, hierpipe) run in one loop
// too, with the chunk as their piece size, as NCCL's trees and NVLS do.
#pragma once

#include <cstdint>

#include "algorithms/core/registry.h"

namespace collsim {

// `entry` in loops of `chunkBytes` per rank (ranks x chunkBytes per loop);
// the entry itself when chunkBytes is 0.
AlgorithmEntry withChunkLoops(const AlgorithmEntry& entry, std::uint64_t chunkBytes);

// How many pieces an algorithm that pipelines `g` itself cuts it into: one
// per devices of a server x spec.chunkBytes (NCCL's NVLS loops: heads x
// chunk), at most kMaxPipelinePieces; `fallback` without a library chunk.
constexpr int kMaxPipelinePieces = 64;
int pipelinePieces(const GroupView& g, const CollectiveSpec& spec, int fallback);

// How many loops a view of `count` elements of `elemSize` bytes over `ranks`
// ranks takes.
std::uint64_t chunkLoopCount(std::uint64_t count, std::uint32_t elemSize, int ranks, std::uint64_t chunkBytes);

} // namespace collsim
