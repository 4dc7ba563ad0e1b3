// How many buckets a bucket size cuts a model's gradients into, checked
// where the size is given (the scenario loader names its line): each
// bucket is a collective and streams of its own in the step's schedule.
// Where the buckets fill: bucket_cuts.h.
#pragma once

#include <cstddef>

#include "sim/workload/model.h"

namespace collsim {

inline constexpr std::size_t kMaxBuckets = 100000;

// Throws InputError when `bucketBytes` (rounded down to whole gradient
// elements, at least one) cuts the model's gradients into more than
// `maxBuckets` buckets.
void checkBucketCount(const ModelSpec& model, Bytes bucketBytes, std::size_t maxBuckets = kMaxBuckets);

} // namespace collsim
