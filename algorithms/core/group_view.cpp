#include "algorithms/core/group_view.h"

#include <numeric>
#include <stdexcept>
#include <string>

namespace collsim {

GroupView::GroupView(std::vector<int> members, int worldSize, std::uint64_t byteOffset,
                     std::uint64_t count, std::uint32_t elemSize)
    : members_(std::move(members)), localOf_(std::size_t(worldSize), -1), byteOffset_(byteOffset),
      count_(count), elemSize_(elemSize) {
  if (members_.empty()) throw std::invalid_argument("a group needs at least one rank");
  for (std::size_t i = 0; i < members_.size(); ++i) {
    int g = members_[i];
    if (g < 0 || g >= worldSize || localOf_[g] != -1)
      throw std::invalid_argument("group member " + std::to_string(g) +
                                  " is out of range or repeated");
    localOf_[g] = int(i);
  }
}

GroupView GroupView::whole(const CollectiveSpec& spec) {
  std::vector<int> all(std::size_t(spec.ranks));
  std::iota(all.begin(), all.end(), 0);
  return GroupView(std::move(all), spec.ranks, 0, spec.count, spec.elemSize);
}

} // namespace collsim
