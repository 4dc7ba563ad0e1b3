#include "sim/workload/bucket_cuts.h"

#include <algorithm>

namespace collsim {

std::vector<BucketCut> cutBuckets(const std::vector<LayerGradients>& order, Bytes bucket, std::array<bool, 2> reduced) {
  std::vector<BucketCut> cuts;
  std::array<Bytes, 2> filled{0, 0}; // of the open bucket, per group
  for (std::size_t j = 0; j < order.size(); ++j) {
    const LayerGradients& l = order[j];
    const std::size_t first = cuts.size();
    for (int g = 0; g < 2; ++g) {
      if (!reduced[std::size_t(g)]) continue;
      const Bytes bytes = l.bytes[std::size_t(g)];
      Bytes& open = filled[std::size_t(g)];
      for (Bytes done = 0; done < bytes;) {
        const Bytes take = std::min(bytes - done, bucket - open);
        done += take, open += take;
        if (open == bucket) cuts.push_back({l.layer, double(done) / double(bytes), g, bucket}), open = 0;
      }
      if (j + 1 == order.size() && open > 0) cuts.push_back({l.layer, 1.0, g, open}), open = 0;
    }
    std::stable_sort(cuts.begin() + std::ptrdiff_t(first), cuts.end(),
                     [](const BucketCut& a, const BucketCut& b) { return a.fraction < b.fraction; });
  }
  return cuts;
}

} // namespace collsim
