// A flat algorithm runs on a group of global ranks over a view of the buffer.
//
// Flat builders take a GroupView instead of "ranks 0..p-1 over the whole
// buffer" so that hierarchical algorithms can be composed from them: an
// intra-server ring over the 8 devices of one server, an inter-server RHD
// over device k of every server, each over its own slice of the buffer.
//
// A view is usually one contiguous range cut into size() nearly equal
// blocks. It may instead have a layout: its elements gathered from several
// buffer ranges ("pieces", in view order) and its blocks cut at given
// offsets. Hierarchical ReduceScatter needs that: device j's share inside a
// server is blocks j, D+j, 2D+j, ... of the buffer. Builders emit operations
// through the view, which splits a range that spans pieces into one
// operation per piece (the same way on every member, so sends and receives
// still match).
#pragma once

#include <algorithm>

#include <cstdint>
#include <memory>
#include <vector>

#include "algorithms/core/schedule.h"

namespace collsim {

// a mod p in 0..p-1, also for negative a (ring and butterfly arithmetic).
inline int wrap(int a, int p) { return ((a % p) + p) % p; }

struct ViewLayout {
  std::vector<Block> pieces;       // buffer element ranges, in view order
  std::vector<std::uint64_t> cuts; // block i = view elements [cuts[i], cuts[i+1])
};

class GroupView {
public:
  // members[i] is the global rank of local rank i; worldSize bounds them.
  GroupView(std::vector<int> members, int worldSize, std::uint64_t byteOffset,
            std::uint64_t count, std::uint32_t elemSize);
  // A view with a layout (pieces of the buffer from byte 0, blocks at `cuts`).
  GroupView(std::vector<int> members, int worldSize, ViewLayout layout, std::uint32_t elemSize);
  // Every rank of the spec over the whole buffer.
  static GroupView whole(const CollectiveSpec& spec);

  int size() const { return int(members_->members.size()); }
  int world() const { return world_; }
  int global(int local) const { return members_->members[std::size_t(local)]; }
  int local(int global) const { // -1 if not a member
    const Members& m = *members_;
    if (!m.localOf.empty()) return m.localOf[std::size_t(global)];
    auto it = std::lower_bound(m.byGlobal.begin(), m.byGlobal.end(), std::pair<int, int>{global, -1});
    return it != m.byGlobal.end() && it->first == global ? it->second : -1;
  }
  std::uint64_t count() const { return count_; }
  std::uint32_t elemSize() const { return elemSize_; }
  std::uint64_t byteOffset() const { return byteOffset_; }
  // The buffer element where view element e lives.
  std::uint64_t bufferElement(std::uint64_t e) const;
  // The same members over elements [b.first, b.first + b.count) of this
  // (contiguous) view.
  GroupView sub(Block b) const;
  // Other members (global ranks) over a part of this (contiguous) view.
  GroupView sub(std::vector<int> members, Block b) const;
  // The same members, found the same way, over `count` elements from the
  // buffer's start: one group's collectives of several sizes share its
  // member table.
  GroupView over(std::uint64_t count) const;

  // Block i of the view: size() nearly equal blocks, or the layout's cuts.
  Block block(int i) const;
  // Blocks [first, first + n) of the view cut into `parts` blocks, as one
  // range. With a layout only parts == size() exists (logic_error otherwise).
  Block span(int parts, int first, int n) const;
  // The whole view.
  Block all() const { return {0, count_}; }
  // Appends the operation(s) on view elements `b` with a local peer: one,
  // or one per layout piece that `b` touches.
  void emit(std::vector<Op>& out, OpKind kind, int localPeer, Block b) const;
  // The single operation on `b`, which must lie in one piece.
  Op op(OpKind kind, int localPeer, Block b) const;

private:
  // The members and how to find one, shared by the views cut from this
  // one (a copy of a view across 32,768 servers copied a 1 MB table).
  struct Members {
    std::vector<int> members;
    // Each member's local rank: by global rank when the group covers at
    // least 1/8 of the world, else as (global, local) pairs by global rank,
    // so that a hierarchy's S groups over N ranks hold O(N), not O(S N).
    std::vector<int> localOf;
    std::vector<std::pair<int, int>> byGlobal;
  };
  std::shared_ptr<const Members> members_;
  int world_ = 0;
  std::uint64_t byteOffset_;
  std::uint64_t count_;
  std::uint32_t elemSize_;
  std::shared_ptr<const ViewLayout> layout_;
};

} // namespace collsim
