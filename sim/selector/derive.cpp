#include "sim/selector/derive.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/selector/selector.h"

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

} // namespace

std::vector<DerivedRule> deriveRules(const Grid& grid, const std::vector<std::string>& only, std::ostream* progress) {
  std::vector<DerivedRule> out;
  for (int ci = 0; ci < int(grid.clusters.size()); ++ci) {
    const ClusterSetup& c = grid.clusters[ci];
    std::vector<Collective> ops;
    std::vector<Bytes> sizes;
    for (const auto& p : grid.points) {
      if (p.cluster != ci) continue;
      if (std::find(ops.begin(), ops.end(), p.op) == ops.end()) ops.push_back(p.op);
      if (std::find(sizes.begin(), sizes.end(), p.bytes) == sizes.end()) sizes.push_back(p.bytes);
    }
    std::sort(sizes.begin(), sizes.end());
    for (Collective op : ops) {
      if (progress) *progress << "\r" << grid.labels[ci] << " " << collectiveName(op) << "          " << std::flush;
      std::vector<std::string> names;
      for (const auto& n : candidates(op, c.cluster))
        if (only.empty() || std::find(only.begin(), only.end(), n) != only.end()) names.push_back(n);
      if (names.empty()) continue;
      std::vector<std::string> winners;
      for (Bytes s : sizes) winners.push_back(bestAt(op, s, c, names));
      Bytes from = 0;
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        bool last = i + 1 == sizes.size();
        if (!last && winners[i + 1] == winners[i]) continue;
        Rule r;
        r.name = grid.labels[ci] + " " + collectiveName(op) + " " + winners[i];
        r.source = "derived by collsim selector derive from simulation";
        r.ops = {op};
        r.servers = Range{double(c.cluster.servers), double(c.cluster.servers)};
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
        out.push_back({r, grid.labels[ci]});
      }
    }
  }
  if (progress) *progress << "\r" << std::string(60, ' ') << "\r" << std::flush;
  return out;
}

std::string rulesYaml(const std::string& name, const std::string& gridFile, const std::vector<DerivedRule>& rules) {
  std::ostringstream os;
  os << "# Derived by collsim selector derive from " << gridFile << ": per cluster shape and collective,\n"
     << "# the fastest algorithm by simulation, with thresholds at the simulated crossovers.\n"
     << "name: " << name << "\nrules:\n";
  for (const auto& d : rules) {
    const Rule& r = d.rule;
    os << "  - name: \"" << r.name << "\"\n    source: \"" << r.source << "\"\n"
       << "    when: {op: " << collectiveName(r.ops.front()) << ", servers: " << r.servers->min
       << ", devices: " << r.devices->min << ", hccs: " << r.hccs.front() << ", fabric: " << r.fabric.front()
       << ", bytes: {min: " << Bytes(r.bytes->min);
    if (r.bytes->max < 1e300) os << ", max: " << Bytes(r.bytes->max);
    os << "}}\n    algo: \"" << r.algorithm << "\"\n";
  }
  os << "fallback: closed-form\n";
  return os.str();
}

} // namespace collsim
