#include "algorithms/hierarchical/server_groups.h"

#include "algorithms/core/compose.h"

namespace collsim {

ServerGroups::ServerGroups(const GroupView& g, int devicesPerServer)
    : g_(g), S_(g.size() / devicesPerServer), D_(devicesPerServer) {}

std::vector<int> ServerGroups::serverMembers(int s) const {
  std::vector<int> m;
  for (int j = 0; j < D_; ++j) m.push_back(g_.global(s * D_ + j));
  return m;
}

std::vector<int> ServerGroups::peerMembers(int j) const {
  std::vector<int> m;
  for (int s = 0; s < S_; ++s) m.push_back(g_.global(s * D_ + j));
  return m;
}

Block ServerGroups::bufferBlock(int b) const {
  Block v = g_.block(b);
  return {g_.bufferElement(v.first), v.count};
}

GroupView ServerGroups::server(int s) const { return g_.sub(serverMembers(s), g_.all()); }
GroupView ServerGroups::peers(int j) const { return g_.sub(peerMembers(j), g_.all()); }
GroupView ServerGroups::peersOnBlock(int j) const { return g_.sub(peerMembers(j), blockOf(g_.count(), D_, j)); }

GroupView ServerGroups::serverByChunks(int s) const {
  ViewLayout layout;
  layout.cuts.push_back(0);
  for (int j = 0; j < D_; ++j) {
    for (int t = 0; t < S_; ++t) layout.pieces.push_back(bufferBlock(t * D_ + j));
    std::uint64_t chunk = 0;
    for (int t = 0; t < S_; ++t) chunk += bufferBlock(t * D_ + j).count;
    layout.cuts.push_back(layout.cuts.back() + chunk);
  }
  return GroupView(serverMembers(s), g_.world(), std::move(layout), g_.elemSize());
}

GroupView ServerGroups::peersOnChunk(int j) const {
  ViewLayout layout;
  layout.cuts.push_back(0);
  for (int s = 0; s < S_; ++s) {
    layout.pieces.push_back(bufferBlock(s * D_ + j));
    layout.cuts.push_back(layout.cuts.back() + layout.pieces.back().count);
  }
  return GroupView(peerMembers(j), g_.world(), std::move(layout), g_.elemSize());
}

SchedulePtr ServerGroups::overViews(const AlgorithmEntry& level, const std::vector<GroupView>& views,
                                    const CollectiveSpec& spec, int root) {
  std::vector<SchedulePtr> parts;
  std::vector<std::vector<int>> members;
  for (const GroupView& view : views) {
    CollectiveSpec sub = spec;
    sub.ranks = view.size();
    sub.devicesPerServer = 0;
    sub.root = root;
    parts.push_back(level.build(view, sub));
    members.emplace_back();
    for (int i = 0; i < view.size(); ++i) members.back().push_back(view.global(i));
  }
  return std::make_unique<DisjointSchedule>(std::move(parts), members);
}

} // namespace collsim
