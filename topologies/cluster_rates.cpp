#include "topologies/cluster_rates.h"

namespace collsim {
namespace {

template <typename At>
Bandwidth linksAt(const Cluster& cluster, LinkTier tier, At at) {
  Bandwidth sum = 0;
  for (const ClusterLink& l : cluster.links)
    if (l.tier == tier && (at(l.a) || at(l.b))) sum += l.params.bandwidth;
  return sum;
}

} // namespace

Bandwidth deviceScaleUpRate(const Cluster& cluster, int rank) {
  if (rank < 0 || rank >= cluster.ranks()) return 0;
  const int device = cluster.rankNode[std::size_t(rank)];
  return linksAt(cluster, LinkTier::ScaleUp, [&](int n) { return n == device; });
}

Bandwidth serverScaleOutRate(const Cluster& cluster, int server) {
  return linksAt(cluster, LinkTier::ScaleOut, [&](int n) {
    const ClusterNode& node = cluster.nodes[std::size_t(n)];
    return node.kind == NodeKind::Nic && node.server == server;
  });
}

} // namespace collsim
