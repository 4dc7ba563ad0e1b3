#include "sim/selector/check.h"

#include "sim/core/parallel.h"
#include "sim/selector/selector.h"

namespace collsim {

std::string GridPoint::key() const { return std::string(collectiveName(op)) + " " + formatBytes(bytes); }

WorkEstimate estimateRuleScores(const Grid& grid, const WorkLimits* stop) {
  WorkEstimate total;
  for (const GridPoint& p : grid.points)
    if (!stopSumming(total, stop)) total.addSequential(estimateCandidates(p.op, p.bytes, grid.clusters[p.cluster], stop));
  return total;
}

std::vector<PointScore> scoreRules(const SelectorRules& rules, const Grid& grid, int threads, std::ostream* progress) {
  // Every simulation the grid needs, once each.
  struct Job {
    std::size_t point;
    std::string algorithm;
    double seconds = 0;
  };
  std::vector<Job> jobs;
  std::vector<std::vector<std::size_t>> jobsOf(grid.points.size());
  for (std::size_t i = 0; i < grid.points.size(); ++i) {
    const GridPoint& p = grid.points[i];
    for (const auto& name : candidates(p.op, grid.clusters[p.cluster].cluster)) {
      jobsOf[i].push_back(jobs.size());
      jobs.push_back({i, name});
    }
  }
  runParallel(
      jobs.size(), threads,
      [&](std::size_t j) {
        const GridPoint& p = grid.points[jobs[j].point];
        jobs[j].seconds = simulateOne(p.op, p.bytes, grid.clusters[p.cluster], jobs[j].algorithm);
      },
      [&](std::size_t n) {
        if (progress && (n % 16 == 0 || n == jobs.size()))
          *progress << "\r[" << n << "/" << jobs.size() << "] simulations" << std::flush;
      });
  if (progress) *progress << "\r" << std::string(40, ' ') << "\r" << std::flush;

  std::vector<PointScore> scores;
  for (std::size_t i = 0; i < grid.points.size(); ++i) {
    const GridPoint& p = grid.points[i];
    const ClusterSetup& c = grid.clusters[p.cluster];
    PointScore s;
    s.key = p.key() + " " + grid.labels[p.cluster];
    Choice choice = choose(rules, p.op, p.bytes, c.cluster);
    s.pick = choice.algorithm;
    s.rule = choice.rule;
    bool pickSimulated = false;
    for (std::size_t j : jobsOf[i]) {
      if (s.best.empty() || jobs[j].seconds < s.bestSeconds) s.best = jobs[j].algorithm, s.bestSeconds = jobs[j].seconds;
      if (jobs[j].algorithm == s.pick) s.pickSeconds = jobs[j].seconds, pickSimulated = true;
    }
    if (!pickSimulated) s.pickSeconds = simulateOne(p.op, p.bytes, c, s.pick); // a rule may name a non-candidate
    scores.push_back(s);
  }
  return scores;
}

} // namespace collsim
