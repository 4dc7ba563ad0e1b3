#include "algorithms/hierarchical/server_groups.h"

#include "algorithms/core/compose.h"

namespace collsim {

ServerGroups::ServerGroups(const GroupView& g, int devicesPerServer)
    : g_(std::make_shared<const GroupView>(g)), S_(g.size() / devicesPerServer), D_(devicesPerServer) {}

std::vector<int> ServerGroups::serverMembers(int s) const {
  std::vector<int> m;
  for (int j = 0; j < D_; ++j) m.push_back(g_->global(s * D_ + j));
  return m;
}

std::vector<int> ServerGroups::peerMembers(int j) const {
  std::vector<int> m;
  for (int s = 0; s < S_; ++s) m.push_back(g_->global(s * D_ + j));
  return m;
}

Block ServerGroups::bufferBlock(int b) const {
  Block v = g_->block(b);
  return {g_->bufferElement(v.first), v.count};
}

GroupView ServerGroups::server(int s) const { return g_->sub(serverMembers(s), g_->all()); }
GroupView ServerGroups::peers(int j) const { return g_->sub(peerMembers(j), g_->all()); }
GroupView ServerGroups::peersOnBlock(int j) const { return g_->sub(peerMembers(j), blockOf(g_->count(), D_, j)); }

GroupView ServerGroups::serverByChunks(int s) const {
  ViewLayout layout;
  layout.cuts.push_back(0);
  for (int j = 0; j < D_; ++j) {
    for (int t = 0; t < S_; ++t) layout.pieces.push_back(bufferBlock(t * D_ + j));
    std::uint64_t chunk = 0;
    for (int t = 0; t < S_; ++t) chunk += bufferBlock(t * D_ + j).count;
    layout.cuts.push_back(layout.cuts.back() + chunk);
  }
  return GroupView(serverMembers(s), g_->world(), std::move(layout), g_->elemSize());
}

GroupView ServerGroups::peersOnChunk(int j) const {
  ViewLayout layout;
  layout.cuts.push_back(0);
  for (int s = 0; s < S_; ++s) {
    layout.pieces.push_back(bufferBlock(s * D_ + j));
    layout.cuts.push_back(layout.cuts.back() + layout.pieces.back().count);
  }
  return GroupView(peerMembers(j), g_->world(), std::move(layout), g_->elemSize());
}

SchedulePtr ServerGroups::inEveryServer(const AlgorithmEntry& level, ViewOf view, const CollectiveSpec& spec,
                                        int root) const {
  std::vector<int> servers;
  for (int s = 0; s < S_; ++s) servers.push_back(s);
  auto partOf = [g = g_, D = D_](int rank) {
    int l = g->local(rank);
    return l < 0 ? -1 : l / D;
  };
  return overViews(level, view, std::move(servers), partOf, spec, root);
}

SchedulePtr ServerGroups::acrossServers(const AlgorithmEntry& level, ViewOf view, const CollectiveSpec& spec, int root,
                                        int only) const {
  std::vector<int> devices;
  for (int j = 0; j < D_; ++j)
    if (only < 0 || j == only) devices.push_back(j);
  auto partOf = [g = g_, D = D_, only](int rank) {
    int l = g->local(rank);
    if (l < 0) return -1;
    return only < 0 ? l % D : l % D == only ? 0 : -1;
  };
  return overViews(level, view, std::move(devices), partOf, spec, root);
}

SchedulePtr ServerGroups::overViews(const AlgorithmEntry& level, ViewOf view, std::vector<int> indices,
                                    std::function<int(int)> partOf, const CollectiveSpec& spec, int root) const {
  CollectiveSpec sub = spec;
  sub.devicesPerServer = 0;
  sub.root = root;
  const std::size_t parts = indices.size();
  auto build = [groups = *this, level, view, indices = std::move(indices), sub](std::size_t i) {
    GroupView v = (groups.*view)(indices[i]);
    CollectiveSpec part = sub;
    part.ranks = v.size();
    return level.build(v, part);
  };
  return std::make_unique<DisjointSchedule>(g_->world(), parts, std::move(partOf), std::move(build));
}

} // namespace collsim
