// foldChannels (rank_symmetry.h): check that a symmetry of the ranks is one
// of the cluster, then map each channel onto its class's representative.
#include <algorithm>

#include "sim/network/rank_symmetry.h"
#include "sim/network/routing.h"

namespace collsim {
namespace {

constexpr std::uint32_t kNone = ~std::uint32_t(0);

// Where everything sits: per server its nodes in index order, each node's
// place there, and the server's first device (whose image says where the
// server goes); each device's rank.
class ClusterPlaces {
public:
  explicit ClusterPlaces(const Cluster& c)
      : c_(c), rankOfNode_(c.nodes.size(), -1), place_(c.nodes.size(), -1), serverNodes_(std::size_t(c.servers)),
        firstRank_(std::size_t(c.servers), -1) {
    for (int r = 0; r < c.ranks(); ++r) rankOfNode_[std::size_t(c.rankNode[std::size_t(r)])] = r;
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
      if (int s = server(int(n)); s >= 0) {
        place_[n] = int(serverNodes_[std::size_t(s)].size());
        serverNodes_[std::size_t(s)].push_back(int(n));
      }
    }
    for (int r = c.ranks() - 1; r >= 0; --r) firstRank_[std::size_t(server(c.rankNode[std::size_t(r)]))] = r;
  }
  int server(int node) const { return c_.nodes[std::size_t(node)].server; }
  int place(int node) const { return place_[std::size_t(node)]; }
  int firstRank(int server) const { return firstRank_[std::size_t(server)]; }
  const std::vector<int>& nodesOf(int server) const { return serverNodes_[std::size_t(server)]; }
  // A link's end as its server sees it: its place, or a fabric switch by its node.
  int end(int node) const { return server(node) < 0 ? -1 - node : place(node); }
  // The image of `node` under the rank map f: a device goes with its rank,
  // another node of a server to its place in its server's image, a fabric
  // switch stays.
  template <class F> int image(int node, const F& f) const {
    const int s = server(node);
    if (s < 0) return node;
    if (int r = rankOfNode_[std::size_t(node)]; r >= 0) return c_.rankNode[std::size_t(f(r))];
    const int to = server(c_.rankNode[std::size_t(f(firstRank(s)))]);
    return serverNodes_[std::size_t(to)][std::size_t(place(node))];
  }

private:
  const Cluster& c_;
  std::vector<int> rankOfNode_, place_;
  std::vector<std::vector<int>> serverNodes_;
  std::vector<int> firstRank_;
};

// Every server has a device, and server 0's nodes (kinds and reductions)
// and links (ends by place, kind and figures, in the order they were built).
// With devices keeping their places, every server permutation is then an
// automorphism of the cluster.
bool serversAlike(const Cluster& c, const ClusterPlaces& at, std::string& why) {
  auto sameNode = [&](int a, int b) {
    const ClusterNode &x = c.nodes[std::size_t(a)], &y = c.nodes[std::size_t(b)];
    return x.kind == y.kind && x.reduces == y.reduces && x.reduceEfficiency == y.reduceEfficiency;
  };
  for (int s = 0; s < c.servers; ++s) {
    const auto &mine = at.nodesOf(s), &first = at.nodesOf(0);
    bool alike = at.firstRank(s) >= 0 && mine.size() == first.size();
    for (std::size_t i = 0; alike && i < mine.size(); ++i) alike = sameNode(mine[i], first[i]);
    if (!alike) {
      why = "the servers are not all alike";
      return false;
    }
  }
  std::vector<std::vector<std::uint32_t>> serverLinks(std::size_t(c.servers));
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    const ClusterLink& l = c.links[i];
    const int a = at.server(l.a), b = at.server(l.b);
    if (a < 0 && b < 0) continue; // between fabric switches: they stay
    if (a >= 0 && b >= 0 && a != b) {
      why = "link " + c.nodes[std::size_t(l.a)].name + " - " + c.nodes[std::size_t(l.b)].name + " joins two servers";
      return false;
    }
    serverLinks[std::size_t(a >= 0 ? a : b)].push_back(std::uint32_t(i));
  }
  auto sameLink = [&](std::uint32_t i, std::uint32_t j) {
    const ClusterLink &x = c.links[i], &y = c.links[j];
    return at.end(x.a) == at.end(y.a) && at.end(x.b) == at.end(y.b) && x.tier == y.tier &&
           x.params.bandwidth == y.params.bandwidth && x.params.latency == y.params.latency;
  };
  for (int s = 1; s < c.servers; ++s) {
    const auto &mine = serverLinks[std::size_t(s)], &first = serverLinks[0];
    bool alike = mine.size() == first.size();
    for (std::size_t k = 0; alike && k < mine.size(); ++k) alike = sameLink(mine[k], first[k]);
    if (!alike) {
      why = "server " + std::to_string(s) + "'s links are not server 0's (a link of another speed, or to another "
            "switch)";
      return false;
    }
  }
  return true;
}

// Each generator moves every server's devices together to one server,
// each to its own place.
bool replicasMoveWholeServers(const Cluster& c, const ClusterPlaces& at, const RankSymmetry& symmetry,
                              std::string& why) {
  for (int g = 0; g < symmetry.generators(); ++g) {
    for (int r = 0; r < c.ranks(); ++r) {
      const int n = c.rankNode[std::size_t(r)], to = c.rankNode[std::size_t(symmetry.generate(g, r))];
      const int server = at.server(c.rankNode[std::size_t(symmetry.generate(g, at.firstRank(at.server(n))))]);
      if (at.server(to) != server || at.place(to) != at.place(n)) {
        why = "the replicas do not fill whole servers alike";
        return false;
      }
    }
  }
  return true;
}

// Links by their ends: parallel links side by side, matched by their order.
class LinkIndex {
public:
  explicit LinkIndex(const Cluster& c) : ordinal_(c.links.size()) {
    for (std::size_t i = 0; i < c.links.size(); ++i) byEnds_.emplace_back(key(c.links[i].a, c.links[i].b), std::uint32_t(i));
    std::sort(byEnds_.begin(), byEnds_.end());
    for (std::size_t j = 0; j < byEnds_.size(); ++j)
      ordinal_[byEnds_[j].second] =
          j > 0 && byEnds_[j - 1].first == byEnds_[j].first ? ordinal_[byEnds_[j - 1].second] + 1 : 0;
  }
  std::size_t ordinal(std::size_t link) const { return ordinal_[link]; }
  // The channel from x to y on their k-th link, or kNone.
  std::uint32_t channel(int x, int y, std::size_t k) const {
    if (std::uint32_t i = link(x, y, k); i != kNone) return 2 * i;
    if (std::uint32_t i = link(y, x, k); i != kNone) return 2 * i + 1;
    return kNone;
  }

private:
  static std::uint64_t key(int a, int b) { return std::uint64_t(std::uint32_t(a)) << 32 | std::uint32_t(b); }
  std::uint32_t link(int a, int b, std::size_t k) const {
    auto it = std::lower_bound(byEnds_.begin(), byEnds_.end(), std::pair{key(a, b), std::uint32_t(0)});
    if (std::size_t(byEnds_.end() - it) <= k || (it + std::ptrdiff_t(k))->first != key(a, b)) return kNone;
    return (it + std::ptrdiff_t(k))->second;
  }
  std::vector<std::pair<std::uint64_t, std::uint32_t>> byEnds_;
  std::vector<std::size_t> ordinal_;
};

// Replicas that meet only through a switch-to-switch link (the spines of a
// leaf-spine fabric) would share it: the first representative's routes to
// and from each of its images must stay off those links.
bool replicasMeetOffSpines(const Cluster& c, const RankSymmetry& symmetry, const std::vector<std::uint32_t>& fold,
                           std::string& why) {
  if (std::none_of(fold.begin(), fold.end(), [](std::uint32_t f) { return f & kFixedChannel; })) return true;
  Routing routing(c);
  routing.fold(fold);
  const int first = symmetry.representativeAt(0);
  for (int g = 0; g < symmetry.generators(); ++g) {
    const int image = symmetry.generate(g, first);
    for (auto [from, to] : {std::pair{first, image}, std::pair{image, first}}) {
      const int a = c.rankNode[std::size_t(from)], b = c.rankNode[std::size_t(to)];
      try {
        routing.route(a, b);
      } catch (const SymmetryBroken& e) {
        why = "from " + c.nodes[std::size_t(a)].name + " to " + c.nodes[std::size_t(b)].name + ", " + e.what();
        return false;
      }
    }
  }
  return true;
}

} // namespace

std::optional<std::vector<std::uint32_t>> foldChannels(const Cluster& c, const RankSymmetry& symmetry,
                                                        std::string& why) {
  const ClusterPlaces at(c);
  if (!serversAlike(c, at, why) || !replicasMoveWholeServers(c, at, symmetry, why)) return std::nullopt;
  // Each channel onto its class's representative: its image under the
  // element that takes its server to a representative one.
  const LinkIndex links(c);
  std::vector<std::uint32_t> fold(2 * c.links.size());
  std::vector<int> members(fold.size(), 0);
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    const ClusterLink& l = c.links[i];
    const int owner = at.server(l.a) >= 0 ? l.a : l.b;
    if (at.server(owner) < 0) { // a link between fabric switches stands for itself alone
      fold[2 * i] = kFixedChannel | std::uint32_t(2 * i), fold[2 * i + 1] = kFixedChannel | std::uint32_t(2 * i + 1);
      continue;
    }
    const int first = at.firstRank(at.server(owner));
    auto f = [&](int r) { return symmetry.alongWith(first, r); };
    const std::uint32_t ch = links.channel(at.image(l.a, f), at.image(l.b, f), links.ordinal(i));
    fold[2 * i] = ch, fold[2 * i + 1] = ch ^ 1;
    ++members[ch], ++members[ch ^ 1];
  }
  for (std::size_t ch = 0; ch < fold.size(); ++ch) {
    if (fold[ch] == ch && members[ch] != symmetry.copies()) {
      why = "a link stands for " + std::to_string(members[ch]) + " links, not " + std::to_string(symmetry.copies());
      return std::nullopt;
    }
  }
  if (!replicasMeetOffSpines(c, symmetry, fold, why)) return std::nullopt;
  return fold;
}

} // namespace collsim
