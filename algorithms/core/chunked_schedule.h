// A schedule held as data in chunks: what a schedule file holds
// (`--algo file:PATH`), so that an algorithm can be tried without C++.
//
// The buffer is cut into `ranks` blocks as blockOf does (rank r's block is
// the one ReduceScatter leaves on it and AllGather starts from), and each
// block into chunks / ranks nearly equal chunks (MSCCL's chunks per loop).
// An operation names a range of whole chunks, so one schedule runs on any
// buffer: at every count the ranks' blocks are unions of chunks and every
// element of a chunk moves with it. The symbolic checker run with one
// element per chunk therefore speaks for every count.
//
// chunksOf writes any algorithm this way: built with one element per chunk,
// its operations are exactly chunk ranges. Files hold sends, receives,
// receive-reduces and waits between streams; AllToAll (an input and an
// output buffer), copies and in-network sends are not written.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "algorithms/core/registry.h"

namespace collsim {

struct ChunkedSchedule {
  std::string name; // what the file calls it
  Collective op = Collective::AllReduce;
  int ranks = 1;
  int chunks = 1; // a multiple of ranks
  int root = 0;   // Broadcast and Reduce
  // streams[s][rank][step]: the operations, whose offset and bytes count
  // chunks (a Wait's peer is the stream, its offset the steps).
  std::vector<MaterializedSchedule> streams;

  // The collective with one element of one byte per chunk: chunk ranges
  // are element ranges (the checker's and chunksOf's buffer).
  CollectiveSpec oneElementPerChunk() const;
};

// Chunks [first, first + n) of view `g` (g.size() ranks, `chunks` chunks)
// as view elements.
Block chunkRange(const GroupView& g, int chunks, std::uint64_t first, std::uint64_t n);

// `s` on the members of `g` (s.ranks of them) over the view's buffer.
SchedulePtr scheduleOfChunks(std::shared_ptr<const ChunkedSchedule> s, const GroupView& g);

// `entry` on `spec`'s ranks (layout and root) in `chunks` chunks; throws
// std::invalid_argument when it cannot be written (see above).
ChunkedSchedule chunksOf(const AlgorithmEntry& entry, CollectiveSpec spec, int chunks);

// A registry entry for `s` named `name`: it runs on s.ranks ranks, for its
// collective and root, and its cost counts the schedule's steps and the
// chunks the busiest rank sends and reduces.
AlgorithmEntry chunkedEntry(std::shared_ptr<const ChunkedSchedule> s, const std::string& name);

} // namespace collsim
