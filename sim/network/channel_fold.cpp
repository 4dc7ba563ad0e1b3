// foldChannels (rank_symmetry.h): check that a symmetry of the ranks is one
// of the cluster, then map each channel onto its class's representative.
//
// Each generator moves the devices with their ranks; where the other nodes
// go (a server's NICs and switches, the fabric's switches) follows from
// their links: a node goes to one of the same kind whose links reach the
// images of its neighbours, found outward from the devices. The map is then
// checked link by link, so a wrong guess can only refuse a fold, never
// make a wrong one.
#include <algorithm>
#include <numeric>

#include "sim/network/rank_symmetry.h"
#include "sim/network/routing.h"

namespace collsim {
namespace {

constexpr std::uint32_t kNone = ~std::uint32_t(0);

// Links by their ends: parallel links side by side, matched by their order.
// A lookup scans the end with fewer links (a NIC's two, not a switch's
// thousands), so a fold of a large cluster costs a few steps a link.
class LinkIndex {
public:
  explicit LinkIndex(const Cluster& c) : c_(c), ordinal_(c.links.size()), adjacent_(c.nodes.size()) {
    for (std::size_t i = 0; i < c.links.size(); ++i) { // in index order: parallel links keep theirs
      adjacent_[std::size_t(c.links[i].a)].push_back({c.links[i].b, std::uint32_t(i)});
      adjacent_[std::size_t(c.links[i].b)].push_back({c.links[i].a, std::uint32_t(i)});
    }
    for (std::size_t i = 0; i < c.links.size(); ++i) { // the links from a to b before it
      const ClusterLink& l = c.links[i];
      const bool fromA = adjacent_[std::size_t(l.a)].size() <= adjacent_[std::size_t(l.b)].size();
      for (auto [other, j] : adjacent_[std::size_t(fromA ? l.a : l.b)]) {
        if (j == i) break;
        if (other == (fromA ? l.b : l.a) && c.links[j].a == l.a) ++ordinal_[i];
      }
    }
  }
  std::size_t ordinal(std::size_t link) const { return ordinal_[link]; }
  // The links at `node`: (the other end, the link).
  const std::vector<std::pair<int, std::uint32_t>>& at(int node) const { return adjacent_[std::size_t(node)]; }
  // The channel from x to y on their k-th link (of those from x to y, or
  // else from y to x), or kNone.
  std::uint32_t channel(int x, int y, std::size_t k) const {
    if (std::uint32_t i = link(x, y, k); i != kNone) return 2 * i;
    if (std::uint32_t i = link(y, x, k); i != kNone) return 2 * i + 1;
    return kNone;
  }

private:
  std::uint32_t link(int a, int b, std::size_t k) const {
    const bool fromA = adjacent_[std::size_t(a)].size() <= adjacent_[std::size_t(b)].size();
    for (auto [other, i] : adjacent_[std::size_t(fromA ? a : b)])
      if (other == (fromA ? b : a) && c_.links[i].a == a && k-- == 0) return i;
    return kNone;
  }
  const Cluster& c_;
  std::vector<std::size_t> ordinal_;
  std::vector<std::vector<std::pair<int, std::uint32_t>>> adjacent_;
};

bool sameNode(const ClusterNode& x, const ClusterNode& y) {
  return x.kind == y.kind && x.reduces == y.reduces && x.reduceEfficiency == y.reduceEfficiency &&
         (x.server < 0) == (y.server < 0);
}

bool sameLink(const ClusterLink& x, const ClusterLink& y) {
  return x.tier == y.tier && x.params.bandwidth == y.params.bandwidth && x.params.latency == y.params.latency;
}

// Each generator moves the devices of every server onto one server's.
bool movesWholeServers(const Cluster& c, const RankSymmetry& symmetry, std::string& why) {
  std::vector<int> serverImage(std::size_t(c.servers));
  for (int g = 0; g < symmetry.generators(); ++g) {
    std::fill(serverImage.begin(), serverImage.end(), -1);
    for (int r = 0; r < c.ranks(); ++r) {
      const int from = c.nodes[std::size_t(c.rankNode[std::size_t(r)])].server;
      const int to = c.nodes[std::size_t(c.rankNode[std::size_t(symmetry.generate(g, r))])].server;
      if (from < 0 || to < 0 || (serverImage[std::size_t(from)] >= 0 && serverImage[std::size_t(from)] != to)) {
        why = "the moved devices do not fill whole servers alike";
        return false;
      }
      serverImage[std::size_t(from)] = to;
    }
  }
  return true;
}

// The image of every node under the rank permutation `f` (devices with
// their ranks), as channels: the image of channel ch is images[ch]. Empty,
// with `why`, when no automorphism of the cluster moves the ranks so.
class ClusterMap {
public:
  explicit ClusterMap(const Cluster& c) : c_(c), links_(c) {}

  template <class F> std::vector<std::uint32_t> channelImages(const F& f, std::string& why) {
    const std::size_t n = c_.nodes.size();
    image_.assign(n, -1), taken_.assign(n, false);
    std::vector<int> queue;
    for (int r = 0; r < c_.ranks(); ++r) {
      const int from = c_.rankNode[std::size_t(r)], to = c_.rankNode[std::size_t(f(r))];
      image_[std::size_t(from)] = to, taken_[std::size_t(to)] = true;
      queue.push_back(from);
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const int u = queue[head];
      for (auto [v, link] : links_.at(u)) {
        if (image_[std::size_t(v)] >= 0) continue;
        const int w = match(v, u, link);
        if (w < 0) {
          why = "no node of the cluster stands to the images of " + c_.nodes[std::size_t(v)].name +
                "'s neighbours as it does (a link of another speed, or to another switch)";
          return {};
        }
        image_[std::size_t(v)] = w, taken_[std::size_t(w)] = true;
        queue.push_back(v);
      }
    }
    for (std::size_t v = 0; v < n; ++v) { // a node no device reaches stays
      if (image_[v] >= 0) continue;
      if (taken_[v]) {
        why = "node " + c_.nodes[v].name + " has no image";
        return {};
      }
      image_[v] = int(v), taken_[v] = true;
    }
    std::vector<std::uint32_t> images(2 * c_.links.size());
    std::vector<bool> hit(c_.links.size(), false); // each link an image once
    for (std::size_t i = 0; i < c_.links.size(); ++i) {
      const ClusterLink& l = c_.links[i];
      const std::uint32_t ch = links_.channel(image_[std::size_t(l.a)], image_[std::size_t(l.b)], links_.ordinal(i));
      if (ch == kNone || hit[ch / 2] || !sameLink(l, c_.links[ch / 2])) {
        why = "link " + c_.nodes[std::size_t(l.a)].name + " - " + c_.nodes[std::size_t(l.b)].name +
              " has no like among the links (a link of another speed, or to another switch)";
        return {};
      }
      images[2 * i] = ch, images[2 * i + 1] = ch ^ 1;
      hit[ch / 2] = true;
    }
    return images;
  }

private:
  // An untaken node like v, linked as v is to the images of v's neighbours
  // that have one (found among the neighbours of u's image, u being one).
  int match(int v, int u, std::uint32_t viaLink) const {
    const ClusterNode& node = c_.nodes[std::size_t(v)];
    for (auto [w, link] : links_.at(image_[std::size_t(u)])) {
      if (taken_[std::size_t(w)] || !sameNode(node, c_.nodes[std::size_t(w)]) ||
          !sameLink(c_.links[viaLink], c_.links[link]))
        continue;
      bool alike = true;
      for (auto [m, mine] : links_.at(v)) {
        if (image_[std::size_t(m)] < 0) continue;
        const std::uint32_t ch = links_.channel(image_[std::size_t(m)], w, links_.ordinal(mine));
        alike = alike && ch != kNone && sameLink(c_.links[mine], c_.links[ch / 2]);
        if (!alike) break;
      }
      if (alike) return w;
    }
    return -1;
  }

  const Cluster& c_;
  LinkIndex links_;
  std::vector<int> image_;
  std::vector<bool> taken_;
};

// Channels in classes (orbits) under the generators' maps, each class
// named by its least channel.
class ChannelClasses {
public:
  explicit ChannelClasses(std::size_t channels) : parent_(channels) {
    std::iota(parent_.begin(), parent_.end(), std::uint32_t(0));
  }
  std::uint32_t find(std::uint32_t ch) {
    while (parent_[ch] != ch) ch = parent_[ch] = parent_[parent_[ch]];
    return ch;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

private:
  std::vector<std::uint32_t> parent_;
};

// Classes of ranks that meet only through a link of a smaller class (the
// spines of a rail fabric) would share it: the first representative's
// routes to and from each of its images must stay off those links, and
// the routes of the `pairs` given must have no choice of paths.
bool routesStayFolded(const Cluster& c, const RankSymmetry& symmetry, const std::vector<std::uint32_t>& fold,
                      std::vector<std::pair<int, int>> pairs, std::string& why) {
  if (std::any_of(fold.begin(), fold.end(), [](std::uint32_t f) { return f & kFixedChannel; })) {
    const int first = symmetry.representativeAt(0);
    for (int g = 0; g < symmetry.generators(); ++g) {
      const int image = symmetry.generate(g, first);
      pairs.insert(pairs.end(), {{first, image}, {image, first}});
    }
  }
  if (pairs.empty()) return true;
  Routing routing(c);
  routing.fold(fold);
  for (auto [from, to] : pairs) {
    const int a = c.rankNode[std::size_t(from)], b = c.rankNode[std::size_t(to)];
    try {
      routing.route(a, b);
    } catch (const SymmetryBroken& e) {
      why = "from " + c.nodes[std::size_t(a)].name + " to " + c.nodes[std::size_t(b)].name + ", " + e.what();
      return false;
    }
  }
  return true;
}

} // namespace

std::optional<std::vector<std::uint32_t>> foldChannels(const Cluster& c, const RankSymmetry& symmetry,
                                                        std::string& why, const std::vector<std::pair<int, int>>& pairs) {
  if (!movesWholeServers(c, symmetry, why)) return std::nullopt;
  ClusterMap map(c);
  ChannelClasses classes(2 * c.links.size());
  for (int g = 0; g < symmetry.generators(); ++g) {
    const std::vector<std::uint32_t> images = map.channelImages([&](int r) { return symmetry.generate(g, r); }, why);
    if (images.empty()) return std::nullopt;
    for (std::uint32_t ch = 0; ch < images.size(); ++ch) classes.join(ch, images[ch]);
  }
  std::vector<std::uint32_t> fold(2 * c.links.size());
  std::vector<int> members(fold.size(), 0);
  for (std::uint32_t ch = 0; ch < fold.size(); ++ch) ++members[fold[ch] = classes.find(ch)];
  // A link some element leaves in place (every one, for a spine of a rail
  // fabric under a replica shift; the TP shift moves rails, not spines)
  // stands for itself alone, marked: a route over it breaks the symmetry.
  for (std::uint32_t ch = 0; ch < fold.size(); ++ch)
    if (members[fold[ch]] != symmetry.copies()) fold[ch] = kFixedChannel | ch;
  if (!routesStayFolded(c, symmetry, fold, pairs, why)) return std::nullopt;
  return fold;
}

} // namespace collsim
