#include "sim/study/execute.h"

#include <algorithm>
#include <numeric>

#include "sim/study/progress.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/trace/trace_recorder.h"

namespace collsim {

std::vector<ScenarioPoint> scenarioPoints(const Scenario& s) {
  std::vector<ScenarioPoint> points;
  for (const auto& name : s.algorithms) {
    bool verify = s.simulation.verify; // the schedule's shape is checked once per algorithm
    for (Bytes size : s.sizes) {
      points.push_back({name, size, verify});
      verify = false;
    }
  }
  return points;
}

CollectiveRun runPoint(const Scenario& s, const ScenarioPoint& point, TraceRecorder* trace, std::uint64_t seed,
                       const std::string& studyPoint) {
  AlgorithmEntry algo = requireAlgorithm(s.op, point.algorithm, s.cluster, s.name);
  RunRequest req{s.op,   &algo, s.dtype, point.size, s.simulation.segment, point.verify, s.root, s.simulation.loopBytes,
                 s.simulation.fidelity, seed, s.roce, s.simulation.channels, s.library, studyPoint};
  req.symmetry = s.simulation.symmetry;
  return simulateCollective(s.cluster, req, trace);
}

// `traced`: a trace shows every rank, so no run folds (collective_symmetry.h).
WorkEstimate estimateScenario(const Scenario& s, const WorkLimits* stop, bool traced) {
  WorkEstimate total;
  const CollectiveEstimator estimate(s.cluster);
  const std::size_t n = s.sizes.size();
  const std::size_t k = sizesToEstimate(n, s.cluster.ranks(), s.algorithms.size());
  // Sizes estimated: an even grid of k of them in size order; those
  // between, interpolated.
  std::vector<std::size_t> bySize(n), grid;
  std::iota(bySize.begin(), bySize.end(), std::size_t(0));
  std::stable_sort(bySize.begin(), bySize.end(), [&](std::size_t a, std::size_t b) { return s.sizes[a] < s.sizes[b]; });
  for (std::size_t j = 0; j < k; ++j) grid.push_back(k == 1 ? 0 : (j * (n - 1) + (k - 1) / 2) / (k - 1));
  for (const auto& name : s.algorithms) {
    AlgorithmEntry algo = requireAlgorithm(s.op, name, s.cluster, s.name);
    std::vector<WorkEstimate> at(n);
    for (std::size_t g : grid) {
      const std::size_t i = bySize[g];
      if (stopSumming(total, stop)) return total;
      RunRequest req{s.op, &algo, s.dtype, s.sizes[i], s.simulation.segment, false, s.root, s.simulation.loopBytes,
                     s.simulation.fidelity, 1, s.roce, s.simulation.channels, s.library};
      req.symmetry = s.simulation.symmetry && !traced;
      at[i] = estimateCollectiveRun(estimate, s.cluster, req);
      total.addSequential(at[i]);
    }
    for (std::size_t g = 0; g + 1 < grid.size(); ++g) {
      const std::size_t low = bySize[grid[g]], high = bySize[grid[g + 1]];
      for (std::size_t between = grid[g] + 1; between < grid[g + 1]; ++between)
        total.addSequential(interpolateEstimate(s.sizes[bySize[between]], s.sizes[low], at[low], s.sizes[high], at[high]));
    }
  }
  return total;
}

// DCQCN's thresholds and steps are tuned for one NIC line rate: a packet-level
// run whose NICs have another rate says which preset it applied to them.
static void noteDcqcnPreset(const Scenario& s, Report& report) {
  const RoceModel& r = s.roce;
  if (s.simulation.fidelity != Fidelity::Packet || !r.dcqcn.enabled || r.dcqcnPresetRate == 0) return;
  auto atHost = [&](int node) { // a sender's own port: DCQCN paces at its rate
    NodeKind k = s.cluster.nodes[std::size_t(node)].kind;
    return k == NodeKind::Device || k == NodeKind::Nic;
  };
  for (const auto& l : s.cluster.links)
    if (l.tier == LinkTier::ScaleOut && (atHost(l.a) || atHost(l.b)) && l.params.bandwidth != r.dcqcnPresetRate) {
      report.notes.push_back("DCQCN preset '" + r.dcqcnPreset + "' was made for " +
                             formatBandwidth(r.dcqcnPresetRate) + " links; it runs here on " +
                             formatBandwidth(l.params.bandwidth) + " NIC links as it is (set dcqcn in the scale-out section to tune it)");
      return;
    }
}

// The fast model shares a switch port fairly between the messages that meet
// there, with no congestion control: where several did, a packet-level run
// would see the queue pass ECN's threshold and DCQCN cut the senders.
static void noteSharedSwitchPorts(const Scenario& s, Report& report) {
  if (s.simulation.fidelity != Fidelity::Fast || !s.roce.dcqcn.enabled || !s.roce.ecn.enabled) return;
  const CollectiveRun* most = nullptr;
  for (const auto& r : report.results)
    if (!most || r.execution.network.switchPortSharing > most->execution.network.switchPortSharing) most = &r;
  if (!most || most->execution.network.switchPortSharing < 2) return;
  const NetworkMetrics& n = most->execution.network;
  report.notes.push_back(std::to_string(n.switchPortSharing) + " messages shared the switch port " +
                         n.switchPortShared + " at once (" + most->algorithm + ", " + formatBytes(most->bytes) +
                         "): the fast model shares it fairly, without congestion control; at packet level its queue "
                         "would pass ECN's threshold and DCQCN cut the senders (--set simulation.fidelity=packet "
                         "measures what that costs)");
}

// A library key that the run takes but the rule it feeds does not read, as
// NCCL would not: said, not silently dropped.
static void noteUnusedLibraryKeys(const Scenario& s, Report& report) {
  const LibraryModel& l = s.library;
  if (l.kind != LibraryKind::Nccl || l.nvlsTreeMaxChunk == 0) return;
  if (!l.chunkLadder)
    report.notes.push_back("library.nvls_tree_max_chunk caps NCCL's chunk ladder, which is off: it has no effect "
                           "(library.chunk_ladder=true runs the ladder)");
  else if (l.version != 0 && l.version < 20)
    report.notes.push_back("library.nvls_tree_max_chunk (NCCL_NVLSTREE_MAX_CHUNKSIZE) came with NCCL 2.20; "
                           "library.version 2." + std::to_string(l.version) + " ignores it, as that release does");
}

// What a reader of the results should know about the scenario's settings.
static void noteSettings(const Scenario& s, Report& report) {
  noteDcqcnPreset(s, report);
  noteUnusedLibraryKeys(s, report);
  // Jitter set in the cluster (HCCS has a small one by default, of no matter here).
  auto same = [](const JitterModel& a, const JitterModel& b) {
    return a.kind == b.kind && a.low == b.low && a.high == b.high && a.median == b.median && a.sigma == b.sigma &&
           a.tailFraction == b.tailFraction && a.tailScale == b.tailScale && a.tailShape == b.tailShape;
  };
  bool jitter = s.roce.jitter.kind != JitterModel::Kind::None || !same(s.roce.hccsJitter, defaultRoceModel().hccsJitter);
  if (jitter && s.simulation.fidelity == Fidelity::Fast)
    report.notes.push_back("the cluster's jitter acts per packet, at packet level only; this fast-model run has none "
                           "(simulation: {fidelity: packet}, or --fidelity packet)");
  if (std::any_of(s.sizes.begin(), s.sizes.end(), [&](Bytes b) { return b < dataTypeInfo(s.dtype).bytes; }))
    report.notes.push_back("a size below one element moves no data (sizes are rounded down to whole elements): its "
                           "time is the algorithm's steps, each paying its latency");
}

Report emptyReport(const Scenario& s, const std::string& command, std::uint64_t seed) {
  Report report;
  report.command = command;
  report.name = s.name;
  report.description = s.description;
  report.clusterName = s.cluster.name;
  report.clusterDescription = s.cluster.description;
  report.segment = s.simulation.segment;
  report.fidelity = s.simulation.fidelity;
  report.seed = seed;
  noteSettings(s, report);
  return report;
}

Report executeScenario(const Scenario& s, const std::string& command, const ExecuteOptions& options) {
  Report report = emptyReport(s, command, options.seed);
  std::vector<ScenarioPoint> points = scenarioPoints(s);
  ProgressLine progress(options.progress, points.size(), "points simulated");
  for (std::size_t i = 0; i < points.size(); ++i) {
    progress.show(i, std::string(collectiveName(s.op)) + " " + points[i].algorithm + " " + formatBytes(points[i].size));
    report.results.push_back(runPoint(s, points[i], options.trace, options.seed));
    if (points[i].verify && !report.results.back().symbolicallyChecked && report.notes.empty())
      report.notes.push_back("the symbolic check of the schedules was skipped: it runs up to " +
                             std::to_string(kMaxCheckedRanks) + " ranks (its cost grows with ranks^2); the test suite "
                             "checks every algorithm's schedule shapes");
  }
  progress.clear();
  noteSharedSwitchPorts(s, report);
  return report;
}

} // namespace collsim
