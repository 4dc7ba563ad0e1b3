// Where backward's gradients fill their buckets, one rule for every step
// (plain data parallelism is the layout tp = pp = 1).
//
// Backward visits a device's layers in an order (reverse, chunk by chunk);
// a layer's gradient bytes appear evenly over its backward, tensor by
// tensor, finer than a layer. The gradients of each group (the dense ones
// on the DP group, the experts' on the expert-DP group) are cut, in that
// order, into buckets of the bucket size (PyTorch DDP's bucket_cap_mb,
// Megatron-LM's bucket size); the last holds what is left. A bucket is
// ready when its last byte is: at a fraction of its layer's backward.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "sim/core/units.h"

namespace collsim {

// One layer's gradients, per group (0 dense, 1 experts), as backward makes them.
struct LayerGradients {
  std::size_t layer;
  std::array<Bytes, 2> bytes;
};

struct BucketCut {
  std::size_t layer; // the layer whose backward fills the bucket's last byte
  double fraction;   // how far into that layer's backward, (0, 1]
  int group;         // 0 dense, 1 experts
  Bytes bytes;
};

// The buckets of `order` (layers in backward order) in the order they
// fill, by fraction within a layer (dense first at equal ones); a group
// that `reduced` says is not reduced has none. `bucket` > 0.
std::vector<BucketCut> cutBuckets(const std::vector<LayerGradients>& order, Bytes bucket, std::array<bool, 2> reduced);

} // namespace collsim
