#include "sim/selector/check.h"

#include <map>

#include <nlohmann/json.hpp>

#include "sim/core/parallel.h"
#include "sim/selector/selector.h"

namespace collsim {

std::string GridPoint::key() const { return std::string(collectiveName(op)) + " " + formatBytes(bytes); }

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
    for (const auto& name : candidates(p.op, grid.clusters[p.cluster])) {
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
    const Cluster& c = grid.clusters[p.cluster];
    PointScore s;
    s.key = p.key() + " " + grid.labels[p.cluster];
    Choice choice = choose(rules, p.op, p.bytes, c);
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

std::string baselineJson(const std::string& rules, const std::vector<PointScore>& scores) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& s : scores)
    points.push_back({{"key", s.key}, {"pick", s.pick}, {"best", s.best}, {"regret", s.regret()}});
  return nlohmann::ordered_json{{"rules", rules}, {"points", points}}.dump(2) + "\n";
}

std::vector<Regression> compareBaseline(const std::vector<PointScore>& now, const std::string& baseline,
                                        double tolerance) {
  // The document must outlive the loop (a range-for over a member of a
  // temporary would dangle).
  const nlohmann::json doc = nlohmann::json::parse(baseline);
  std::map<std::string, double> before;
  for (const auto& p : doc.at("points")) before[p.at("key").get<std::string>()] = p.at("regret").get<double>();
  std::vector<Regression> out;
  for (const auto& s : now) {
    auto it = before.find(s.key);
    if (it != before.end() && s.regret() > it->second + tolerance) out.push_back({s.key, it->second, s.regret()});
  }
  return out;
}

} // namespace collsim
