#include "sim/network/rank_symmetry.h"

#include <algorithm>

#include "sim/network/routing.h"

namespace collsim {
namespace {

bool powerOfTwo(int n) { return n > 0 && (n & (n - 1)) == 0; }

} // namespace

RankSymmetry::RankSymmetry(int ranks, int stride, int size, int unit, Law law)
    : ranks_(ranks), stride_(stride), size_(size), unit_(unit), law_(law) {
  if (stride < 1 || size < 1 || unit < 1 || size % unit != 0 || ranks % (stride * size) != 0)
    throw std::invalid_argument("rank symmetry: unit must divide size and stride x size the ranks");
  if (law == Law::Xor && (!powerOfTwo(size) || !powerOfTwo(unit)))
    throw std::invalid_argument("rank symmetry: xor needs powers of two");
}

int RankSymmetry::representativeIndex(int rank) const {
  const int low = rank % stride_, high = rank / (stride_ * size_);
  return low + stride_ * (digit(rank) + unit_ * high);
}

int RankSymmetry::representativeAt(int index) const {
  const int low = index % stride_, d = index / stride_ % unit_, high = index / (stride_ * unit_);
  return low + stride_ * (d + size_ * high);
}

int RankSymmetry::toRepresentative(int rank) const {
  const int k = digit(rank) - digit(rank) % unit_;
  return law_ == Law::Xor ? k : (size_ - k) % size_;
}

int RankSymmetry::generators() const {
  if (law_ == Law::Cyclic) return 1;
  int n = 0;
  for (int k = unit_; k < size_; k *= 2) ++n;
  return n;
}

int RankSymmetry::generate(int generator, int rank) const {
  return apply(law_ == Law::Cyclic ? unit_ : unit_ << generator, rank);
}

std::string RankSymmetry::text() const {
  return std::to_string(unit_) + " of " + std::to_string(size_) + (unit_ == 1 ? " replicas stands" : " replicas stand") +
         " for all (" +
         (law_ == Law::Cyclic ? "d -> d + " : "d -> d xor ") + std::to_string(unit_) + ")";
}

std::optional<std::vector<std::uint32_t>> foldChannels(const Cluster& c, const RankSymmetry& symmetry,
                                                        std::string& why) {
  const std::size_t nodes = c.nodes.size();
  auto serverOf = [&](int n) { return c.nodes[std::size_t(n)].server; };
  std::vector<int> rankOfNode(nodes, -1);
  for (int r = 0; r < c.ranks(); ++r) rankOfNode[std::size_t(c.rankNode[std::size_t(r)])] = r;
  // Per server its nodes in index order, each node's place there, and its
  // first device (whose image says where the server goes).
  std::vector<std::vector<int>> serverNodes(std::size_t(c.servers));
  std::vector<int> place(nodes, -1), firstRank(std::size_t(c.servers), -1);
  for (std::size_t n = 0; n < nodes; ++n) {
    int s = serverOf(int(n));
    if (s < 0) continue;
    place[n] = int(serverNodes[std::size_t(s)].size());
    serverNodes[std::size_t(s)].push_back(int(n));
  }
  for (int r = c.ranks() - 1; r >= 0; --r) firstRank[std::size_t(serverOf(c.rankNode[std::size_t(r)]))] = r;
  auto sameNode = [&](int a, int b) {
    const ClusterNode &x = c.nodes[std::size_t(a)], &y = c.nodes[std::size_t(b)];
    return x.kind == y.kind && x.reduces == y.reduces && x.reduceEfficiency == y.reduceEfficiency;
  };
  for (int s = 0; s < c.servers; ++s) {
    const auto &mine = serverNodes[std::size_t(s)], &first = serverNodes[0];
    bool alike = firstRank[std::size_t(s)] >= 0 && mine.size() == first.size();
    for (std::size_t i = 0; alike && i < mine.size(); ++i) alike = sameNode(mine[i], first[i]);
    if (!alike) {
      why = "the servers are not all alike";
      return std::nullopt;
    }
  }
  // The image of node n under the rank map f: a device goes with its rank,
  // another node of a server to the same place in its server's image, a
  // fabric switch stays.
  auto image = [&](int n, const auto& f) {
    const int s = serverOf(n);
    if (s < 0) return n;
    if (int r = rankOfNode[std::size_t(n)]; r >= 0) return c.rankNode[std::size_t(f(r))];
    const int to = serverOf(c.rankNode[std::size_t(f(firstRank[std::size_t(s)]))]);
    return serverNodes[std::size_t(to)][std::size_t(place[std::size_t(n)])];
  };
  // Links by their ends; parallel links match by their order.
  auto key = [](int a, int b) { return std::uint64_t(std::uint32_t(a)) << 32 | std::uint32_t(b); };
  std::vector<std::pair<std::uint64_t, std::uint32_t>> byEnds; // sorted: parallel links side by side, in order
  for (std::size_t i = 0; i < c.links.size(); ++i) byEnds.emplace_back(key(c.links[i].a, c.links[i].b), std::uint32_t(i));
  std::sort(byEnds.begin(), byEnds.end());
  std::vector<std::size_t> ordinal(c.links.size());
  for (std::size_t j = 0; j < byEnds.size(); ++j)
    ordinal[byEnds[j].second] = j > 0 && byEnds[j - 1].first == byEnds[j].first ? ordinal[byEnds[j - 1].second] + 1 : 0;
  constexpr std::uint32_t kNone = ~std::uint32_t(0);
  auto linkBetween = [&](int x, int y, std::size_t k) {
    auto it = std::lower_bound(byEnds.begin(), byEnds.end(), std::pair{key(x, y), std::uint32_t(0)});
    return it + std::ptrdiff_t(k) < byEnds.end() && (it + std::ptrdiff_t(k))->first == key(x, y)
               ? (it + std::ptrdiff_t(k))->second
               : kNone;
  };
  auto channelBetween = [&](int x, int y, std::size_t k) {
    if (std::uint32_t i = linkBetween(x, y, k); i != kNone) return 2 * i;
    if (std::uint32_t i = linkBetween(y, x, k); i != kNone) return 2 * i + 1;
    return kNone;
  };
  for (int g = 0; g < symmetry.generators(); ++g) {
    auto f = [&](int r) { return symmetry.generate(g, r); };
    for (int r = 0; r < c.ranks(); ++r) { // servers go whole, each device to its own place
      const int n = c.rankNode[std::size_t(r)], to = c.rankNode[std::size_t(f(r))];
      const int server = serverOf(c.rankNode[std::size_t(f(firstRank[std::size_t(serverOf(n))]))]);
      if (serverOf(to) != server || place[std::size_t(to)] != place[std::size_t(n)]) {
        why = "the replicas do not fill whole servers alike";
        return std::nullopt;
      }
    }
  }
  // Alike servers: each server's links, in the order they were built, join
  // the same places (a fabric switch by its node) with the same kind and
  // figures as server 0's. With the devices keeping their places, every
  // server permutation is then an automorphism.
  std::vector<std::vector<std::uint32_t>> serverLinks(std::size_t(c.servers));
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    const ClusterLink& l = c.links[i];
    if (serverOf(l.a) < 0 && serverOf(l.b) < 0) continue; // between fabric switches: they stay
    if (serverOf(l.a) >= 0 && serverOf(l.b) >= 0 && serverOf(l.a) != serverOf(l.b)) {
      why = "link " + c.nodes[std::size_t(l.a)].name + " - " + c.nodes[std::size_t(l.b)].name + " joins two servers";
      return std::nullopt;
    }
    serverLinks[std::size_t(serverOf(l.a) >= 0 ? serverOf(l.a) : serverOf(l.b))].push_back(std::uint32_t(i));
  }
  auto end = [&](int n) { return serverOf(n) < 0 ? -1 - n : place[std::size_t(n)]; };
  auto sameLink = [&](std::uint32_t i, std::uint32_t j) {
    const ClusterLink &x = c.links[i], &y = c.links[j];
    return end(x.a) == end(y.a) && end(x.b) == end(y.b) && x.type == y.type &&
           x.params.bandwidth == y.params.bandwidth && x.params.latency == y.params.latency;
  };
  for (int s = 1; s < c.servers; ++s) {
    const auto &mine = serverLinks[std::size_t(s)], &first = serverLinks[0];
    bool alike = mine.size() == first.size();
    for (std::size_t k = 0; alike && k < mine.size(); ++k) alike = sameLink(mine[k], first[k]);
    if (!alike) {
      why = "server " + std::to_string(s) + "'s links are not server 0's (a link of another speed, or to another "
            "switch)";
      return std::nullopt;
    }
  }
  // Each channel onto its class's representative: the image under the
  // element that takes its server to a representative one.
  std::vector<std::uint32_t> fold(2 * c.links.size());
  std::vector<int> members(fold.size(), 0);
  for (std::size_t i = 0; i < c.links.size(); ++i) {
    const ClusterLink& l = c.links[i];
    const int owner = serverOf(l.a) >= 0 ? l.a : l.b;
    if (serverOf(owner) < 0) { // a link between fabric switches stands for itself alone
      fold[2 * i] = kFixedChannel | std::uint32_t(2 * i), fold[2 * i + 1] = kFixedChannel | std::uint32_t(2 * i + 1);
      continue;
    }
    const int first = firstRank[std::size_t(serverOf(owner))];
    auto f = [&](int r) { return symmetry.alongWith(first, r); };
    const std::uint32_t ch = channelBetween(image(l.a, f), image(l.b, f), ordinal[i]);
    fold[2 * i] = ch, fold[2 * i + 1] = ch ^ 1;
    ++members[ch], ++members[ch ^ 1];
  }
  for (std::size_t ch = 0; ch < fold.size(); ++ch) {
    if (fold[ch] == ch && members[ch] != symmetry.copies()) {
      why = "a link stands for " + std::to_string(members[ch]) + " links, not " + std::to_string(symmetry.copies());
      return std::nullopt;
    }
  }
  // Replicas that meet only through a switch-to-switch link (the spines of a
  // leaf-spine fabric) would share it: the first representative's route to
  // each of its images must stay off those links.
  if (std::none_of(fold.begin(), fold.end(), [](std::uint32_t f) { return f & kFixedChannel; })) return fold;
  Routing routing(c);
  routing.fold(fold);
  const int first = symmetry.representativeAt(0);
  for (int g = 0; g < symmetry.generators(); ++g) {
    const int image = symmetry.generate(g, first);
    for (auto [from, to] : {std::pair{first, image}, std::pair{image, first}}) {
      try {
        routing.route(c.rankNode[std::size_t(from)], c.rankNode[std::size_t(to)]);
      } catch (const SymmetryBroken& e) {
        why = "from " + c.nodes[std::size_t(c.rankNode[std::size_t(from)])].name + " to " +
              c.nodes[std::size_t(c.rankNode[std::size_t(to)])].name + ", " + e.what();
        return std::nullopt;
      }
    }
  }
  return fold;
}

} // namespace collsim
