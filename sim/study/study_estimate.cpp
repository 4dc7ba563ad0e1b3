#include "sim/study/study_estimate.h"

#include <map>

#include "sim/study/execute.h"
#include "sim/study/execute_training.h"

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

WorkEstimate estimatePoint(const Scenario& s, const WorkLimits* stop) {
  if (!s.loadError.empty()) return {};
  if (!s.training) return estimateScenario(s, stop);
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

WorkEstimate estimateStudy(const StudyReader& study, const WorkLimits* stop) {
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
        const Scenario s = study.point(i);
        cost += costOf(s);
        anyRead = anyRead || s.loadError.empty();
        it = estimated.emplace(i, estimatePoint(s, stop)).first;
      }
      sum.addSequential(it->second);
    }
    // The sample's sum, for the whole study.
    const double scale = double(n) / double(sample.size());
    sum.events *= scale;
    sum.wallSeconds *= scale;
    last = sum;
    if (sample.size() == n || cost >= kBudget) break;
    if (stop && pastLimits(last, *stop)) {
      last.partial = true;
      break;
    }
  }
  if (!anyRead) { // every point sampled failed: if all do, all() says why (the study is wrong)
    WorkEstimate sum;
    for (const Scenario& s : study.all()) sum.addSequential(estimatePoint(s, stop));
    return sum;
  }
  return last;
}

} // namespace collsim
