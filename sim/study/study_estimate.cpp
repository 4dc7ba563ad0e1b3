#include "sim/study/study_estimate.h"

#include <chrono>
#include <map>

#include "sim/study/execute.h"
#include "sim/study/execute_training.h"
#include "sim/run/simulate.h"

namespace collsim {
namespace {

// The cost of estimating, in rank-estimates (one rank's schedule walked for
// one algorithm at one size, ~60 ns): reading a point costs about as much
// as 1,500 of them (~80 us, a sweep point of the 8-device ring); about half
// a second in all.
constexpr double kReadCost = 1500;
constexpr double kBudget = double(1 << 23);
// The last round: kStudySamplePoints strata (256 reads: ~20 ms).
constexpr int kMaxRound = 8;
static_assert(std::size_t(1) << kMaxRound == kStudySamplePoints);

double costOf(const Scenario& s) {
  if (!s.loadError.empty()) return kReadCost;
  const double ranks = s.cluster.ranks(), algorithms = double(s.algorithms.size());
  // A training step estimates a few collectives (its buckets, TP and PP
  // transfers) per algorithm.
  const double sizes = s.training ? 8.0 : double(sizesToEstimate(s.sizes.size(), s.cluster.ranks(), s.algorithms.size()));
  return kReadCost + ranks * algorithms * sizes;
}

// What a run keeps of a point from its start to its end (runStudy reads
// every point before it runs them, and the report needs every result):
// the point as read, its cluster's tables above all; a result per
// collective run (its ranks' finish times, its tiers' metrics); and the
// result's row of the output, about 800 B of text and cells (measured on
// the 99,856-point sweep of scripts/bench_estimate.sh: 3.4, 1.8 and 0.8 KB
// a point of an 8-device ring, 600 MB at its peak). A training point's
// result is counted as its report row's.
template <class V> double heapBytes(const V& v) {
  constexpr double kPerAllocation = 32; // malloc's header and rounding, measured with the above
  return v.capacity() ? double(v.capacity() * sizeof(v[0])) + kPerAllocation : 0.0;
}

double heldBytes(const Scenario& s) {
  constexpr double kRowBytes = 800, kResultBytes = sizeof(CollectiveRun) + 10 * sizeof(BusyLink) + 256;
  const Cluster& c = s.cluster;
  double point = double(sizeof(Scenario)) + heapBytes(c.nodes) + heapBytes(c.links) + heapBytes(c.rankNode) +
                 heapBytes(c.serverRings) + heapBytes(c.tiers) + heapBytes(s.library.protocols) +
                 heapBytes(s.algorithms) + heapBytes(s.sizes) + heapBytes(s.sweepValues);
  for (const auto& ring : c.serverRings) point += heapBytes(ring);
  for (const auto& [key, value] : s.sweepValues) point += double(key.size() + value.size());
  const double runs = s.training ? 1.0 : double(s.algorithms.size() * s.sizes.size());
  const double result = kResultBytes + double(c.ranks()) * sizeof(Time) + double(c.tiers.size()) * sizeof(LinkTypeMetrics);
  return point + runs * (result + kRowBytes);
}

WorkEstimate estimatePoint(const Scenario& s, const WorkLimits* stop, bool traced) {
  if (!s.loadError.empty()) return {};
  if (!s.training) return estimateScenario(s, stop, traced);
  std::vector<Scenario> one{s};
  std::vector<TrainingJob> jobs = trainingJobs(one);
  return estimateTrainingJobs(jobs, stop);
}

} // namespace

std::vector<std::size_t> studySampleRound(std::size_t points, int round) {
  std::vector<std::size_t> at;
  const std::size_t strata = std::size_t(1) << round;
  if (strata >= points) {
    for (std::size_t i = 0; i < points; ++i) at.push_back(i);
    return at;
  }
  for (std::size_t k = 0; k < strata; ++k) at.push_back(std::size_t((double(k) + 0.5) * double(points) / double(strata)));
  return at;
}

WorkEstimate estimateStudy(const StudyReader& study, const WorkLimits* stop, bool traced) {
  const std::size_t n = study.size();
  std::map<std::size_t, WorkEstimate> estimated; // rounds share points on small studies
  double cost = 0;
  bool anyRead = false;
  WorkEstimate last;
  for (int round = 0; round <= kMaxRound; ++round) {
    const std::vector<std::size_t> sample = studySampleRound(n, round);
    WorkEstimate sum;
    for (std::size_t i : sample) {
      auto it = estimated.find(i);
      if (it == estimated.end()) {
        const auto started = std::chrono::steady_clock::now();
        const Scenario s = study.point(i);
        // Reading every point comes first, on one thread: as long a point
        // as this one took (measured: it is the run's own code).
        const double read = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        cost += costOf(s);
        anyRead = anyRead || s.loadError.empty();
        WorkEstimate e = estimatePoint(s, stop, traced);
        e.serialSeconds = read;
        e.wallSeconds = e.seconds() + read;
        e.heldBytes = heldBytes(s);
        it = estimated.emplace(i, e).first;
      }
      sum.addSequential(it->second);
    }
    // The sample's sum, for the whole study.
    const double scale = double(n) / double(sample.size());
    sum.events *= scale;
    sum.wallSeconds *= scale;
    sum.runs *= scale;
    sum.serialSeconds *= scale;
    sum.heldBytes *= scale;
    last = sum;
    if (sample.size() == n || cost >= kBudget) break;
    if (stop && pastLimits(last, *stop)) {
      last.partial = true;
      break;
    }
  }
  if (!anyRead) { // every point sampled failed: if all do, all() says why (the study is wrong)
    WorkEstimate sum;
    for (const Scenario& s : study.all()) sum.addSequential(estimatePoint(s, stop, traced));
    return sum;
  }
  return last;
}

} // namespace collsim
