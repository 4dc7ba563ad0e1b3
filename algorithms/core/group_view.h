// A flat algorithm runs on a group of global ranks over a view of the buffer.
//
// Flat builders take a GroupView instead of "ranks 0..p-1 over the whole
// buffer" so that hierarchical algorithms can be composed from them: an
// intra-server ring over the 8 devices of one server, an inter-server RHD
// over device k of every server, each over its own slice of the buffer.
#pragma once

#include <cstdint>
#include <vector>

#include "algorithms/core/schedule.h"

namespace collsim {

// a mod p in 0..p-1, also for negative a (ring and butterfly arithmetic).
inline int wrap(int a, int p) { return ((a % p) + p) % p; }

class GroupView {
public:
  // members[i] is the global rank of local rank i; worldSize bounds them.
  GroupView(std::vector<int> members, int worldSize, std::uint64_t byteOffset,
            std::uint64_t count, std::uint32_t elemSize);
  // Every rank of the spec over the whole buffer.
  static GroupView whole(const CollectiveSpec& spec);

  int size() const { return int(members_.size()); }
  int world() const { return int(localOf_.size()); }
  int global(int local) const { return members_[local]; }
  int local(int global) const { return localOf_[global]; } // -1 if not a member
  std::uint64_t count() const { return count_; }
  std::uint32_t elemSize() const { return elemSize_; }
  std::uint64_t byteOffset() const { return byteOffset_; }
  // The same members over elements [b.first, b.first + b.count) of this view.
  GroupView sub(Block b) const { return sub(members_, b); }
  // Other members (global ranks) over a part of this view.
  GroupView sub(std::vector<int> members, Block b) const {
    return GroupView(std::move(members), world(), byteOffset_ + b.first * elemSize_, b.count, elemSize_);
  }

  // Block i of the view cut into size() blocks.
  Block block(int i) const { return blockOf(count_, size(), i); }
  // Blocks [first, first + n) of the view cut into `parts` blocks, as one range.
  Block span(int parts, int first, int n) const {
    if (n == 0) return {blockOf(count_, parts, first).first, 0};
    Block a = blockOf(count_, parts, first), b = blockOf(count_, parts, first + n - 1);
    return {a.first, b.first + b.count - a.first};
  }
  // The whole view.
  Block all() const { return {0, count_}; }
  // An operation with a local peer on elements of the view.
  Op op(OpKind kind, int localPeer, Block b) const {
    return Op{kind, members_[localPeer], byteOffset_ + b.first * elemSize_, b.count * elemSize_};
  }

private:
  std::vector<int> members_;
  std::vector<int> localOf_;
  std::uint64_t byteOffset_;
  std::uint64_t count_;
  std::uint32_t elemSize_;
};

} // namespace collsim
