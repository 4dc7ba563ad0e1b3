#include "algorithms/core/group_view.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace collsim {

GroupView::GroupView(std::vector<int> members, int worldSize, std::uint64_t byteOffset,
                     std::uint64_t count, std::uint32_t elemSize)
    : world_(worldSize), byteOffset_(byteOffset), count_(count), elemSize_(elemSize) {
  auto m = std::make_shared<Members>();
  m->members = std::move(members);
  if (m->members.empty()) throw std::invalid_argument("a group needs at least one rank");
  auto refuse = [](int g) {
    throw std::invalid_argument("group member " + std::to_string(g) + " is out of range or repeated");
  };
  for (int g : m->members)
    if (g < 0 || g >= worldSize) refuse(g);
  if (m->members.size() * 8 >= std::size_t(worldSize)) {
    m->localOf.assign(std::size_t(worldSize), -1);
    for (std::size_t i = 0; i < m->members.size(); ++i) {
      if (m->localOf[std::size_t(m->members[i])] != -1) refuse(m->members[i]);
      m->localOf[std::size_t(m->members[i])] = int(i);
    }
  } else {
    for (std::size_t i = 0; i < m->members.size(); ++i) m->byGlobal.emplace_back(m->members[i], int(i));
    std::sort(m->byGlobal.begin(), m->byGlobal.end());
    for (std::size_t i = 1; i < m->byGlobal.size(); ++i)
      if (m->byGlobal[i].first == m->byGlobal[i - 1].first) refuse(m->byGlobal[i].first);
  }
  members_ = std::move(m);
}

GroupView::GroupView(std::vector<int> members, int worldSize, ViewLayout layout, std::uint32_t elemSize)
    : GroupView(std::move(members), worldSize, 0, 0, elemSize) {
  std::uint64_t total = 0;
  for (const Block& piece : layout.pieces) total += piece.count;
  if (layout.cuts.size() != std::size_t(size()) + 1 || layout.cuts.front() != 0 || layout.cuts.back() != total)
    throw std::invalid_argument("a view layout needs one block per member covering all its pieces");
  count_ = total;
  layout_ = std::make_shared<const ViewLayout>(std::move(layout));
}

std::uint64_t GroupView::bufferElement(std::uint64_t e) const {
  if (!layout_) return byteOffset_ / elemSize_ + e;
  for (const Block& piece : layout_->pieces) {
    if (e < piece.count) return piece.first + e;
    e -= piece.count;
  }
  throw std::out_of_range("view element past the end of its layout");
}

GroupView GroupView::sub(Block b) const {
  if (layout_) throw std::logic_error("a view with a layout cannot be cut further");
  GroupView v = *this; // the same members, found the same way
  v.byteOffset_ = byteOffset_ + b.first * elemSize_;
  v.count_ = b.count;
  return v;
}

GroupView GroupView::over(std::uint64_t count) const {
  if (layout_) throw std::logic_error("a view with a layout has its own size");
  GroupView v = *this;
  v.byteOffset_ = 0;
  v.count_ = count;
  return v;
}

GroupView GroupView::sub(std::vector<int> members, Block b) const {
  if (layout_) throw std::logic_error("a view with a layout cannot be cut further");
  return GroupView(std::move(members), world(), byteOffset_ + b.first * elemSize_, b.count, elemSize_);
}

Block GroupView::block(int i) const {
  if (!layout_) return blockOf(count_, size(), i);
  return {layout_->cuts[i], layout_->cuts[i + 1] - layout_->cuts[i]};
}

Block GroupView::span(int parts, int first, int n) const {
  if (layout_) {
    if (parts != size()) throw std::logic_error("this algorithm cuts the view into other blocks than its layout's");
    return {layout_->cuts[first], layout_->cuts[first + n] - layout_->cuts[first]};
  }
  if (n == 0) return {blockOf(count_, parts, first).first, 0};
  Block a = blockOf(count_, parts, first), b = blockOf(count_, parts, first + n - 1);
  return {a.first, b.first + b.count - a.first};
}

Op GroupView::op(OpKind kind, int localPeer, Block b) const {
  if (layout_) {
    std::vector<Op> ops;
    emit(ops, kind, localPeer, b);
    if (ops.size() != 1) throw std::logic_error("range spans several pieces of the view's layout");
    return ops.front();
  }
  return Op{kind, global(localPeer), byteOffset_ + b.first * elemSize_, b.count * elemSize_};
}

void GroupView::emit(std::vector<Op>& out, OpKind kind, int localPeer, Block b) const {
  if (!layout_) {
    out.push_back(Op{kind, global(localPeer), byteOffset_ + b.first * elemSize_, b.count * elemSize_});
    return;
  }
  const int peer = global(localPeer);
  if (b.count == 0) { // an empty message still travels, from where it would start
    std::uint64_t at = b.first < count_ ? bufferElement(b.first) : 0;
    out.push_back(Op{kind, peer, at * elemSize_, 0});
    return;
  }
  std::uint64_t start = 0; // view offset of the current piece
  for (const Block& piece : layout_->pieces) {
    std::uint64_t lo = std::max(b.first, start), hi = std::min(b.first + b.count, start + piece.count);
    if (lo < hi) out.push_back(Op{kind, peer, (piece.first + lo - start) * elemSize_, (hi - lo) * elemSize_});
    start += piece.count;
  }
}

GroupView GroupView::whole(const CollectiveSpec& spec) {
  std::vector<int> all(std::size_t(spec.ranks));
  std::iota(all.begin(), all.end(), 0);
  return GroupView(std::move(all), spec.ranks, 0, spec.count, spec.elemSize);
}

} // namespace collsim
