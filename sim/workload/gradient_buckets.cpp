#include "sim/workload/gradient_buckets.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace collsim {

void checkBucketCount(const ModelSpec& model, Bytes bucketBytes, std::size_t maxBuckets) {
  const Bytes elem = model.precision.gradients;
  const Bytes bucket = std::max(elem, bucketBytes / elem * elem);
  const Bytes total = model.gradientBytes();
  if ((total + bucket - 1) / bucket > maxBuckets)
    throw InputError("a bucket of " + formatBytes(bucketBytes) + " cuts " + formatBytes(total) +
                     " of gradients into more than " + std::to_string(maxBuckets) +
                     " buckets; choose a larger training.bucket");
}

BackwardPlan planBackward(const ModelSpec& model, Time backward, Bytes bucketBytes, std::size_t maxBuckets) {
  checkBucketCount(model, bucketBytes, maxBuckets);
  const Bytes elem = model.precision.gradients;
  const Bytes bucket = std::max(elem, bucketBytes / elem * elem);
  BackwardPlan plan;
  Bytes produced = 0;    // gradient bytes so far, in backward order
  Bytes bucketStart = 0; // where the open bucket began; bucketStart <= produced < bucketStart + bucket
  double elapsed = 0;    // backward time so far, unrounded
  Time emitted = 0;      // sum of the piece durations so far
  int lastWithBytes = -1;
  auto endPiece = [&](const std::string& layer, double at, bool withBytes) {
    // Within [emitted, backward]: a double near 1e17 ps is tens of ps
    // coarse, and the last piece must not be left a negative remainder.
    Time end = std::clamp(Time(std::llround(at)), emitted, std::max(emitted, backward));
    plan.pieces.push_back({layer, end - emitted});
    emitted = end;
    if (withBytes) lastWithBytes = int(plan.pieces.size()) - 1;
  };
  for (auto it = model.layers.rbegin(); it != model.layers.rend(); ++it) {
    double duration = double(backward) * it->computeShare;
    Bytes bytes = it->parameters * elem;
    Bytes layerEnd = produced + bytes;
    // Each bucket boundary inside the layer ends a piece.
    while (bucketStart + bucket <= layerEnd) {
      Bytes boundary = bucketStart + bucket;
      endPiece(it->name, elapsed + duration * double(boundary - produced) / double(bytes), true);
      plan.buckets.push_back({bucket, int(plan.pieces.size()) - 1});
      bucketStart = boundary;
    }
    elapsed += duration;
    if (bytes == 0 || bucketStart < layerEnd) endPiece(it->name, elapsed, bytes > 0);
    produced = layerEnd;
  }
  if (produced > bucketStart) plan.buckets.push_back({produced - bucketStart, lastWithBytes});
  // Rounding may leave the sum short of the backward time (never past it).
  if (!plan.pieces.empty()) plan.pieces.back().duration += backward - emitted;
  return plan;
}

} // namespace collsim
