#include "algorithms/core/chunk_loops.h"

#include <algorithm>

#include "algorithms/core/compose.h"

namespace collsim {

std::uint64_t chunkLoopCount(std::uint64_t count, std::uint32_t elemSize, int ranks, std::uint64_t chunkBytes) {
  if (chunkBytes == 0 || count == 0) return 1;
  std::uint64_t loopElems = std::max<std::uint64_t>(1, chunkBytes / elemSize) * std::uint64_t(ranks);
  return (count + loopElems - 1) / loopElems;
}

int pipelinePieces(const GroupView& g, const CollectiveSpec& spec, int fallback) {
  if (spec.chunkBytes == 0) return fallback;
  int D = spec.devicesPerServer > 0 && spec.devicesPerServer < g.size() ? spec.devicesPerServer : g.size();
  std::uint64_t loops = chunkLoopCount(g.count(), g.elemSize(), D, spec.chunkBytes);
  return int(std::min<std::uint64_t>(loops, kMaxPipelinePieces));
}

AlgorithmEntry withChunkLoops(const AlgorithmEntry& entry, std::uint64_t chunkBytes) {
  if (chunkBytes == 0) return entry;
  AlgorithmEntry e = entry;
  e.build = [entry, chunkBytes](const GroupView& g, const CollectiveSpec& spec) -> SchedulePtr {
    CollectiveSpec chunked = spec;
    chunked.chunkBytes = chunkBytes;
    std::uint64_t loops = chunkLoopCount(g.count(), g.elemSize(), g.size(), chunkBytes);
    if (loops <= 1 || spec.op != Collective::AllReduce || entry.pipelinesChunks) return entry.build(g, chunked);
    std::uint64_t loopElems = std::max<std::uint64_t>(1, chunkBytes / g.elemSize()) * std::uint64_t(g.size());
    std::vector<SchedulePtr> parts;
    std::vector<SequenceSchedule::PartTag> tags;
    for (std::uint64_t k = 0; k < loops; ++k) {
      std::uint64_t first = k * loopElems;
      parts.push_back(entry.build(g.sub(Block{first, std::min(loopElems, g.count() - first)}), chunked));
      tags.push_back({-1, int(k)});
    }
    return std::make_unique<SequenceSchedule>(std::move(parts), std::move(tags));
  };
  return e;
}

} // namespace collsim
