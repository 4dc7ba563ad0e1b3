#include "sim/validation/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "sim/core/parallel.h"
#include "sim/core/statistics.h"
#include "sim/core/text_list.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"
#include "sim/validation/library_algorithms.h"

namespace collsim {

namespace {

// What a comparison will simulate: the sizes it compares, each size's
// candidate algorithms and their protocols, and what that work costs.
struct ComparisonPlan {
  std::vector<MeasuredPoint> used;
  std::map<std::string, AlgorithmEntry> entries; // the candidates point into it
  std::vector<std::vector<const AlgorithmEntry*>> algos;
  std::vector<std::vector<std::optional<Protocol>>> protocols; // per size, per algorithm
  std::vector<std::string> names; // those that run, in their first size's order
  bool byLibrary = false;
  WorkEstimate work;
};

// One simulation of the comparison: `algo` at size `p` under `protocol`
// (none: the library tries its candidates). The devices' time: the host's
// launches are compared apart (compareWithMeasured's hostUs).
RunRequest comparedRun(const MeasuredCurve& curve, Collective op, const ClusterSetup& setup, const CompareOptions& o,
                       const MeasuredPoint& p, const AlgorithmEntry* algo, std::optional<Protocol> protocol) {
  RunRequest req{op, algo, curve.dtype, p.bytes, o.segment, false};
  req.roce = setup.roce;
  req.library = setup.library;
  req.library.launch = 0;
  if (protocol) req.library.protocol = ProtocolSet::only(*protocol);
  req.channels = o.channels;
  req.schedules = o.schedules;
  return req;
}

ComparisonPlan planComparison(const MeasuredCurve& curve, Collective op, const ClusterSetup& setup,
                              const CompareOptions& o) {
  ComparisonPlan plan;
  auto& used = plan.used;
  auto& names = plan.names;
  auto& entries = plan.entries;
  auto& algos = plan.algos;
  auto& protocols = plan.protocols;
  bool& byLibrary = plan.byLibrary;
  WorkEstimate& work = plan.work;
  const Cluster& cluster = setup.cluster;
  int ranks = ranksOf(curve, op);
  if (ranks > 0 && ranks != cluster.ranks())
    throw InputError(curve.source + ": measured on " + std::to_string(ranks) + " ranks; the cluster " + cluster.name +
                     " has " + std::to_string(cluster.ranks()) + " (--set servers=N or devices=N)");
  // "ring,hier:nvls+ring": per size the fastest, as a library picks its
  // algorithm by size; "library": the cluster's library's own candidates.
  byLibrary = o.algorithm == kLibraryAlgorithm;
  std::function<std::vector<std::string>(Bytes)> namesFor =
      byLibrary ? libraryAlgorithms(op, setup, o.rules)
                : [listed = splitList(o.algorithm)](Bytes) { return listed; };
  // Of several, those that reduce in the network are left out when the
  // protocols allowed cannot run them (NCCL_PROTO=LL128 leaves NVLS out), as
  // the library leaves them out; alone, one says why it cannot run.
  auto algorithmsFor = [&](Bytes bytes) {
    std::vector<const AlgorithmEntry*> algos;
    for (const auto& name : namesFor(bytes)) {
      auto it = entries.find(name);
      if (it == entries.end()) it = entries.emplace(name, requireAlgorithm(op, name, cluster, "--algo")).first;
      algos.push_back(&it->second);
    }
    auto inNetwork = [](const AlgorithmEntry* a) { return a->reducesInNetwork(); };
    if (!setup.library.allowsInNetwork() && !std::all_of(algos.begin(), algos.end(), inNetwork))
      std::erase_if(algos, inNetwork);
    return algos;
  };
  for (const auto& p : curve.points)
    if (p.bytes >= o.minBytes && p.timeUs > 0) used.push_back(p);
  if (used.empty()) throw InputError(curve.source + ": no measured size at or above " + formatBytes(o.minBytes));

  // Every size's candidates, found before the sizes run on several threads.
  // Under NCCL its tuning model picks, as NCCL does: the library's choice
  // is its pick alone, and each algorithm of a list runs under the protocol
  // it rates fastest (none below: the simulation tries them all).
  std::optional<NcclPicker> nccl;
  if (setup.library.kind == LibraryKind::Nccl) nccl.emplace(op, setup, o.channels > 1 ? o.channels : 0);
  for (const auto& p : used) {
    std::vector<const AlgorithmEntry*> candidates = algorithmsFor(p.bytes);
    std::vector<std::optional<Protocol>> chosen(candidates.size());
    if (nccl && byLibrary) {
      std::vector<std::string> candidateNames;
      for (const AlgorithmEntry* a : candidates) candidateNames.push_back(a->name);
      NcclPicker::Pick pick = nccl->pick(candidateNames, p.bytes);
      if (!pick.algorithm.empty()) {
        std::erase_if(candidates, [&](const AlgorithmEntry* a) { return a->name != pick.algorithm; });
        chosen = {pick.protocol};
      }
    } else if (nccl) {
      for (std::size_t k = 0; k < candidates.size(); ++k) chosen[k] = nccl->protocolFor(candidates[k]->name, p.bytes);
    }
    algos.push_back(candidates);
    protocols.push_back(chosen);
    for (const AlgorithmEntry* a : algos.back())
      if (std::find(names.begin(), names.end(), a->name) == names.end()) names.push_back(a->name);
  }
  // Every simulation estimated first: a log's sizes cannot ask for more
  // work than a run may do (a few hundred rows of 16 TiB would take years).
  if (o.approved) return plan;
  const CollectiveEstimator estimate(cluster);
  for (std::size_t i = 0; i < used.size(); ++i)
    for (std::size_t k = 0; k < algos[i].size(); ++k)
      work.addSequential(
          estimateCollectiveRun(estimate, cluster, comparedRun(curve, op, setup, o, used[i], algos[i][k], protocols[i][k])));
  return plan;
}

} // namespace

WorkEstimate estimateComparison(const MeasuredCurve& curve, Collective op, const ClusterSetup& setup,
                                const CompareOptions& o) {
  return planComparison(curve, op, setup, o).work;
}

Comparison compareWithMeasured(const MeasuredCurve& curve, Collective op, const ClusterSetup& setup,
                               const CompareOptions& o) {
  const Cluster& cluster = setup.cluster;
  ComparisonPlan plan = planComparison(curve, op, setup, o);
  const auto& used = plan.used;
  const auto& names = plan.names;
  const auto& algos = plan.algos;
  const auto& protocols = plan.protocols;
  if (!o.approved) enforceLimits(plan.work, o.limits, curve.source);
  std::string label = plan.byLibrary ? "the library's choice (" + joinList(names) + ")" : joinList(names);
  Comparison c{o.channels > 1 ? label + " x" + std::to_string(o.channels) : label, setup.library.name(), op,
               cluster.ranks(), {}, 0, 0, 0, 0};
  // The two-point line t = a + b n through the ends.
  const MeasuredPoint &lo = used.front(), &hi = used.back();
  double slope = hi.bytes > lo.bytes ? (hi.timeUs - lo.timeUs) / double(hi.bytes - lo.bytes) : 0;
  // nccl-tests and hccl_test time a loop of collectives issued back to back
  // without waiting: the host launches the next while the devices still run
  // this one. A size takes the devices' time (launch left out), or the
  // host's when launching on all the devices a thread drives takes longer.
  const double hostUs = toMicroseconds(setup.library.launch) * curve.devicesPerThread;
  // The sizes are independent: simulated on every core, the largest first.
  std::vector<std::optional<CollectiveRun>> best(used.size());
  std::vector<std::uint64_t> events(used.size(), 0);
  int threads = o.threads > 0 ? o.threads : hardwareThreads();
  runParallel(used.size(), std::min(threads, int(used.size())), [&](std::size_t job) {
    std::size_t i = used.size() - 1 - job;
    for (std::size_t k = 0; k < algos[i].size(); ++k) {
      CollectiveRun run = simulateCollective(cluster, comparedRun(curve, op, setup, o, used[i], algos[i][k], protocols[i][k]));
      events[i] += run.simulatedEvents;
      if (!best[i] || run.execution.finish < best[i]->execution.finish) best[i] = std::move(run);
    }
  }, [&](std::size_t done) {
    if (o.progress) o.progress(done, used.size());
  });
  c.hostUs = hostUs;
  std::vector<double> errors, lineErrors;
  for (std::size_t i = 0; i < used.size(); ++i) {
    const MeasuredPoint& p = used[i];
    const CollectiveRun& run = *best[i];
    c.events += events[i];
    ComparedPoint cp{p.bytes, p.timeUs, std::max(run.timeUs(), hostUs), lo.timeUs + slope * double(p.bytes - lo.bytes),
                     run.protocol, run.channels, names.size() > 1 ? run.algorithm : "", hostUs > run.timeUs()};
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
