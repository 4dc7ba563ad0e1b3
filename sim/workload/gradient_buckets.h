// How backward produces gradients and fills buckets.
//
// Backward visits the layers in reverse order; a layer's gradient bytes
// appear evenly over its backward time (tensor by tensor, finer than a
// layer). The gradients, in that order, are cut into buckets of the bucket
// size (PyTorch DDP's bucket_cap_mb: a framework setting, not an HCCL one);
// the last bucket holds what is left. A bucket is ready when its last byte
// is. The backward pass is cut into pieces at the layer and bucket
// boundaries, so that "bucket b is ready" is "piece i is done".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/workload/model.h"

namespace collsim {

struct BackwardPiece {
  std::string layer; // the layer this piece of backward belongs to
  Time duration;
};

struct GradientBucket {
  Bytes bytes;
  int readyAfterPiece; // index into pieces
};

struct BackwardPlan {
  std::vector<BackwardPiece> pieces;   // in backward order; durations add up to the backward time
  std::vector<GradientBucket> buckets; // in the order they become ready
};

inline constexpr std::size_t kMaxBuckets = 100000;

// Throws InputError when `bucketBytes` cuts the model's gradients into more
// than `maxBuckets` buckets (the training loader calls it too, to say where
// the bucket was set).
void checkBucketCount(const ModelSpec& model, Bytes bucketBytes, std::size_t maxBuckets = kMaxBuckets);

// `bucketBytes` is rounded down to whole gradient elements (at least one).
// Throws InputError beyond `maxBuckets` buckets.
BackwardPlan planBackward(const ModelSpec& model, Time backward, Bytes bucketBytes, std::size_t maxBuckets = kMaxBuckets);

} // namespace collsim
