#include "sim/workload/gradient_buckets.h"

#include <algorithm>
#include <string>

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

} // namespace collsim
