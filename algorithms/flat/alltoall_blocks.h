// AllToAll buffer layout (CollectiveSpec): input blocks, then output blocks,
// each of count / p elements. Block j of the input goes to rank j; block j
// of the output comes from rank j.
#pragma once

#include "algorithms/core/group_view.h"

namespace collsim {

struct AllToAllBlocks {
  std::uint64_t count; // elements of the input area
  std::uint64_t size;  // elements per block
  AllToAllBlocks(const GroupView& g) : count(g.count()), size(g.count() / std::uint64_t(g.size())) {}
  Block input(int j, int n = 1) const { return {std::uint64_t(j) * size, std::uint64_t(n) * size}; }
  Block output(int j) const { return {count + std::uint64_t(j) * size, size}; }
};

} // namespace collsim
