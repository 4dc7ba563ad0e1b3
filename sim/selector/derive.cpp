#include "sim/selector/derive.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/run/simulate.h"
#include "sim/selector/selector.h"
#include "topologies/multi_server.h"
#include "topologies/server_shapes.h"

namespace collsim {
namespace {

// Sizes handed to the simulation stay whole 8-byte multiples (any dtype).
Bytes aligned(double bytes) { return std::max<Bytes>(8, Bytes(std::llround(bytes / 8)) * 8); }

std::string bestAt(Collective op, Bytes bytes, const ClusterSetup& c, const std::vector<std::string>& names) {
  std::string best;
  double bestTime = 0;
  for (const auto& n : names) {
    double t = simulateOne(op, bytes, c, n);
    if (best.empty() || t < bestTime) best = n, bestTime = t;
  }
  return best;
}

// The bisection's steps between lo and hi: to about 1 % of the size.
int crossoverSteps(Bytes lo, Bytes hi) {
  return int(std::ceil(std::log2(std::max(1.0, (std::log(double(hi)) - std::log(double(lo))) / 0.01))));
}

// The smallest size (to about 1 %) at which `b` is faster than `a`, between lo and hi.
Bytes crossover(Collective op, const ClusterSetup& c, const std::string& a, const std::string& b, Bytes lo, Bytes hi) {
  double l = std::log(double(lo)), h = std::log(double(hi));
  while (h - l > 0.01) {
    double mid = (l + h) / 2;
    Bytes m = aligned(std::exp(mid));
    if (simulateOne(op, m, c, b) < simulateOne(op, m, c, a)) h = mid;
    else l = mid;
  }
  return aligned(std::exp(h));
}

// A grid cluster's collectives and sizes (ascending).
struct ClusterCases {
  std::vector<Collective> ops;
  std::vector<Bytes> sizes;
};
ClusterCases casesOf(const Grid& grid, int ci) {
  ClusterCases c;
  for (const auto& p : grid.points) {
    if (p.cluster != ci) continue;
    if (std::find(c.ops.begin(), c.ops.end(), p.op) == c.ops.end()) c.ops.push_back(p.op);
    if (std::find(c.sizes.begin(), c.sizes.end(), p.bytes) == c.sizes.end()) c.sizes.push_back(p.bytes);
  }
  std::sort(c.sizes.begin(), c.sizes.end());
  return c;
}

std::vector<std::string> namesFor(Collective op, const Cluster& cluster, const std::vector<std::string>& only) {
  std::vector<std::string> names;
  for (const auto& n : candidates(op, cluster))
    if (only.empty() || std::find(only.begin(), only.end(), n) != only.end()) names.push_back(n);
  return names;
}

// One grid cluster's rules: per collective, the winner over each run of sizes.
std::vector<Rule> rulesOfCluster(const Grid& grid, int ci, const std::vector<std::string>& only, std::ostream* progress) {
  const ClusterSetup& c = grid.clusters[std::size_t(ci)];
  const auto [ops, sizes] = casesOf(grid, ci);
  std::vector<Rule> out;
  for (Collective op : ops) {
    if (progress) *progress << "\r" << grid.labels[std::size_t(ci)] << " " << collectiveName(op) << "          " << std::flush;
    const std::vector<std::string> names = namesFor(op, c.cluster, only);
    if (names.empty()) continue;
    std::vector<std::string> winners;
    for (Bytes s : sizes) winners.push_back(bestAt(op, s, c, names));
    Bytes from = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      bool last = i + 1 == sizes.size();
      if (!last && winners[i + 1] == winners[i]) continue;
      Rule r;
      r.source = "derived by collsim selector derive from simulation";
      r.ops = {op};
      r.devices = Range{double(c.cluster.devicesPerServer), double(c.cluster.devicesPerServer)};
      r.hccs = {c.cluster.hccsShape};
      r.fabric = {c.cluster.fabric};
      Range bytes{double(from), 1e300};
      if (!last) {
        Bytes cut = crossover(op, c, winners[i], winners[i + 1], sizes[i], sizes[i + 1]);
        bytes.max = double(cut - 1);
        from = cut;
      }
      r.bytes = bytes;
      r.algorithm = winners[i];
      out.push_back(r);
    }
  }
  return out;
}

bool sameChoices(const std::vector<Rule>& a, const std::vector<Rule>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Rule& x, const Rule& y) {
    return x.ops == y.ops && x.algorithm == y.algorithm && x.bytes->min == y.bytes->min && x.bytes->max == y.bytes->max;
  });
}

std::string serversText(const Range& r) {
  if (r.min == r.max) return std::to_string(long(r.min));
  if (r.max >= 1e300) return std::to_string(long(r.min)) + "+";
  return std::to_string(long(r.min)) + "-" + std::to_string(long(r.max));
}

} // namespace

// Server counts between two of the grid's go to the nearer (geometrically):
// a grid of 2, 8 and 32 servers gives rules for 1-4, 5-16 and 17 on. Neighbours
// that choose alike (same winners, same thresholds) share one range.
WorkEstimate estimateDerive(const Grid& grid, const std::vector<std::string>& only, const WorkLimits* stop) {
  WorkEstimate total;
  for (int ci = 0; ci < int(grid.clusters.size()); ++ci) {
    const ClusterSetup& c = grid.clusters[std::size_t(ci)];
    const ClusterCases cases = casesOf(grid, ci);
    const CollectiveEstimator estimate(c.cluster);
    auto one = [&](Collective op, const std::string& name, Bytes bytes) { return estimateOne(estimate, op, bytes, c, name); };
    for (Collective op : cases.ops) {
      const std::vector<std::string> names = namesFor(op, c.cluster, only);
      for (Bytes s : cases.sizes)
        for (const auto& n : names)
          if (!stopSumming(total, stop)) total.addSequential(one(op, n, s));
      // At most one crossover a gap, and no more than the winners can change: two runs a step, near the larger size.
      if (names.empty() || cases.sizes.size() < 2) continue;
      const std::size_t gaps = std::min(cases.sizes.size() - 1, names.size() - 1);
      for (std::size_t g = 0; g < gaps; ++g) {
        const Bytes lo = cases.sizes[cases.sizes.size() - 2 - g], hi = cases.sizes[cases.sizes.size() - 1 - g];
        WorkEstimate step = one(op, names.front(), hi);
        for (int k = 0; k < 2 * crossoverSteps(lo, hi) && !stopSumming(total, stop); ++k) total.addSequential(step);
      }
    }
  }
  return total;
}

std::vector<DerivedRule> deriveRules(const Grid& grid, const std::vector<std::string>& only, std::ostream* progress) {
  // Clusters that differ only in their server count, in order of it.
  std::vector<std::vector<int>> families;
  auto familyKey = [&](int ci) {
    const Cluster& c = grid.clusters[std::size_t(ci)].cluster;
    return std::tuple{c.name, c.devicesPerServer, c.hccsShape, c.fabric};
  };
  for (int ci = 0; ci < int(grid.clusters.size()); ++ci) {
    auto it = std::find_if(families.begin(), families.end(), [&](const auto& f) { return familyKey(f[0]) == familyKey(ci); });
    if (it == families.end()) families.push_back({ci});
    else it->push_back(ci);
  }
  std::vector<DerivedRule> out;
  for (auto& family : families) {
    auto servers = [&](int ci) { return grid.clusters[std::size_t(ci)].cluster.servers; };
    std::stable_sort(family.begin(), family.end(), [&](int a, int b) { return servers(a) < servers(b); });
    std::vector<std::pair<Range, std::vector<Rule>>> spans;
    for (std::size_t i = 0; i < family.size(); ++i) {
      std::vector<Rule> rules = rulesOfCluster(grid, family[i], only, progress);
      if (i > 0 && servers(family[i]) == servers(family[i - 1])) { // another cluster of that name and size
        spans.push_back({spans.back().first, std::move(rules)});
        continue;
      }
      double lo = spans.empty() ? 1 : spans.back().first.max + 1, hi = 1e300;
      if (i + 1 < family.size())
        hi = std::floor(std::sqrt(double(servers(family[i])) * double(servers(family[i + 1]))));
      hi = std::max(hi, double(servers(family[i])));
      if (!spans.empty() && sameChoices(spans.back().second, rules)) spans.back().first.max = hi;
      else spans.push_back({Range{lo, hi}, std::move(rules)});
    }
    if (family.size() == 1) spans.front().first = Range{double(servers(family[0])), double(servers(family[0]))};
    const Cluster& c = grid.clusters[std::size_t(family[0])].cluster;
    for (auto& [range, rules] : spans) {
      std::string label = c.name + " servers=" + serversText(range) + " devices=" + std::to_string(c.devicesPerServer);
      for (Rule& r : rules) {
        r.servers = range;
        r.name = label + " " + collectiveName(r.ops.front()) + " " + r.algorithm;
        out.push_back({r, label});
      }
    }
  }
  if (progress) *progress << "\r" << std::string(60, ' ') << "\r" << std::flush;
  return out;
}

std::string rulesYaml(const std::string& name, const std::string& gridFile, const Grid& grid,
                      const std::vector<DerivedRule>& rules) {
  std::ostringstream os;
  os << "# Derived by collsim selector derive from " << gridFile << ": per cluster shape and collective,\n"
     << "# the fastest algorithm by simulation, with thresholds at the simulated crossovers; server\n"
     << "# counts between the grid's go to the nearer one.\n"
     << "name: " << name << "\nderived_from: {grid: \"" << grid.name << "\", fingerprint: \"" << grid.fingerprint
     << "\"}\nrules:\n";
  for (const auto& d : rules) {
    const Rule& r = d.rule;
    os << "  - name: \"" << r.name << "\"\n    source: \"" << r.source << "\"\n"
       << "    when: {op: " << collectiveName(r.ops.front()) << ", servers: ";
    if (r.servers->min == r.servers->max) os << r.servers->min;
    else if (r.servers->max >= 1e300) os << "{min: " << r.servers->min << "}";
    else os << "{min: " << r.servers->min << ", max: " << r.servers->max << "}";
    os << ", devices: " << r.devices->min << ", hccs: " << hccsShapeName(r.hccs.front()) << ", fabric: " << fabricKindName(r.fabric.front())
       << ", bytes: {min: " << Bytes(r.bytes->min);
    if (r.bytes->max < 1e300) os << ", max: " << Bytes(r.bytes->max);
    os << "}}\n    algo: \"" << r.algorithm << "\"\n";
  }
  os << "fallback: closed-form\n";
  return os.str();
}

} // namespace collsim
