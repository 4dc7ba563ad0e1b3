#include "sim/validation/compare.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"

namespace collsim {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

} // namespace

Comparison compareWithMeasured(const MeasuredCurve& curve, Collective op, const ClusterSetup& setup,
                               const CompareOptions& o) {
  const Cluster& cluster = setup.cluster;
  int ranks = ranksOf(curve, op);
  if (ranks > 0 && ranks != cluster.ranks())
    throw InputError(curve.source + ": measured on " + std::to_string(ranks) + " ranks; the cluster " + cluster.name +
                     " has " + std::to_string(cluster.ranks()) + " (--set servers=N or devices=N)");
  // "ring,hier:nvls+ring": per size the fastest, as a library picks its
  // algorithm by size.
  std::vector<AlgorithmEntry> algos;
  for (std::size_t start = 0;;) {
    std::size_t comma = o.algorithm.find(',', start);
    algos.push_back(requireAlgorithm(op, o.algorithm.substr(start, comma - start), cluster, "--algo"));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::vector<MeasuredPoint> used;
  for (const auto& p : curve.points)
    if (p.bytes >= o.minBytes && p.timeUs > 0) used.push_back(p);
  if (used.empty()) throw InputError(curve.source + ": no measured size at or above " + formatBytes(o.minBytes));

  Comparison c{o.channels > 1 ? o.algorithm + " x" + std::to_string(o.channels) : o.algorithm, setup.library.name, op,
               cluster.ranks(), {}, 0, 0, 0, 0};
  // The two-point line t = a + b n through the ends.
  const MeasuredPoint &lo = used.front(), &hi = used.back();
  double slope = hi.bytes > lo.bytes ? (hi.timeUs - lo.timeUs) / double(hi.bytes - lo.bytes) : 0;
  std::vector<double> errors, lineErrors;
  for (const auto& p : used) {
    std::optional<CollectiveRun> best;
    for (const AlgorithmEntry& algo : algos) {
      RunRequest req{op, &algo, curve.dtype, p.bytes, o.segment, false};
      req.roce = setup.roce;
      req.library = setup.library;
      req.channels = o.channels;
      CollectiveRun run = simulateCollective(cluster, req);
      c.events += run.simulatedEvents;
      if (!best || run.execution.finish < best->execution.finish) best = std::move(run);
    }
    const CollectiveRun& run = *best;
    ComparedPoint cp{p.bytes, p.timeUs, run.timeUs(), lo.timeUs + slope * double(p.bytes - lo.bytes), run.protocol,
                     run.channels, algos.size() > 1 ? run.algorithm : ""};
    errors.push_back(std::abs(cp.error()));
    lineErrors.push_back(std::abs(cp.lineError()));
    c.points.push_back(cp);
  }
  c.medianAbsError = median(errors);
  c.maxAbsError = *std::max_element(errors.begin(), errors.end());
  c.lineMedianAbsError = median(lineErrors);
  c.lineMaxAbsError = *std::max_element(lineErrors.begin(), lineErrors.end());
  return c;
}

} // namespace collsim
