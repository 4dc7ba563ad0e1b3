#include "sim/run/in_network_chunk.h"

#include <algorithm>

namespace collsim {
namespace {

constexpr Bytes KiB = 1024;
constexpr int kNewestMinor = 27;

// One rung: below `times` chunks per concurrent op, at most `to`.
struct Rung {
  Bytes times, to;
};

Bytes climbDown(Bytes chunk, Bytes bytes, Bytes concurrentOps, std::initializer_list<Rung> ladder) {
  for (const Rung& r : ladder)
    if (bytes < r.times * concurrentOps * chunk && chunk > r.to) chunk = r.to;
  return chunk;
}

} // namespace

Bytes ncclInNetworkChunk(const InNetworkChunkInput& in) {
  const int minor = in.minor == 0 ? kNewestMinor : in.minor;
  const Bytes ops = Bytes(std::max(1, in.channels)) * Bytes(std::max(1, in.heads));
  Bytes chunk = in.simpleStep;
  if (in.pattern == InNetworkPattern::Nvls) {
    Bytes most = minor >= 21 ? in.nvlsChunk : 128 * KiB;
    if (minor >= 19 && in.nodes > 1 && in.nvlsRateGBs < 150) most = 32 * KiB;
    chunk = std::min(chunk, most);
    return climbDown(chunk, in.bytes, ops, {{64, 64 * KiB}, {8, 32 * KiB}, {2, 16 * KiB}});
  }
  if (minor >= 21) chunk = in.nvlsChunk;
  if (minor >= 20 && in.treeMaxChunk > 0) chunk = std::min(chunk, in.treeMaxChunk);
  else if (minor >= 19 && in.nodes >= 4) chunk = std::min(chunk, 64 * KiB);
  return climbDown(chunk, in.bytes, ops, {{32, 256 * KiB}, {16, 128 * KiB}, {4, 64 * KiB}, {1, 32 * KiB}});
}

} // namespace collsim
