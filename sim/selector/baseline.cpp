#include "sim/selector/baseline.h"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"

namespace collsim {

Baseline parseBaseline(const std::string& text, const std::string& file) {
  Baseline b;
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    b.rules = doc.at("rules").get<std::string>();
    if (doc.contains("collsim_version")) b.stamp.version = doc.at("collsim_version").get<std::string>();
    if (doc.contains("grid_fingerprint")) b.stamp.gridFingerprint = doc.at("grid_fingerprint").get<std::string>();
    for (const auto& p : doc.at("points")) {
      BaselinePoint q;
      q.key = p.at("key").get<std::string>();
      q.pick = p.at("pick").get<std::string>();
      q.rule = p.contains("rule") ? p.at("rule").get<std::string>() : "";
      q.best = p.at("best").get<std::string>();
      q.regret = p.at("regret").get<double>();
      b.points.push_back(std::move(q));
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError("--baseline " + file + ": not a collsim selector baseline (" + e.what() +
                     "); write one with --update-baseline");
  }
  return b;
}

std::string baselineJson(const std::string& rules, const BaselineStamp& stamp, const std::vector<PointScore>& scores) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& s : scores)
    points.push_back({{"key", s.key}, {"pick", s.pick}, {"rule", s.rule}, {"best", s.best}, {"regret", s.regret()}});
  return nlohmann::ordered_json{{"rules", rules},
                                {"collsim_version", stamp.version},
                                {"grid_fingerprint", stamp.gridFingerprint},
                                {"points", points}}
             .dump(2) +
         "\n";
}

BaselineDiff compareBaseline(const std::vector<PointScore>& now, const BaselineStamp& current, const Baseline& before,
                             double tolerance) {
  BaselineDiff d;
  std::map<std::string, const BaselinePoint*> old;
  for (const auto& p : before.points) old[p.key] = &p;
  std::set<std::string> seen;
  for (const auto& s : now) {
    seen.insert(s.key);
    auto it = old.find(s.key);
    if (it == old.end()) {
      d.added.push_back(s.key);
      continue;
    }
    const BaselinePoint& b = *it->second;
    if (s.regret() > b.regret + tolerance) d.regressions.push_back({s.key, b.regret, s.regret()});
    else if (s.regret() < b.regret - tolerance) d.improvements.push_back({s.key, b.regret, s.regret()});
    if (s.pick != b.pick) d.pickChanges.push_back({s.key, b.pick, b.rule, s.pick, s.rule});
  }
  for (const auto& p : before.points)
    if (!seen.count(p.key)) d.missing.push_back(p.key);
  if (!(before.stamp == current)) {
    d.stampDiffers = true;
    std::vector<std::string> what;
    if (before.stamp.version != current.version)
      what.push_back("collsim " + (before.stamp.version.empty() ? std::string("(unstamped)") : before.stamp.version) +
                     " -> " + current.version);
    if (before.stamp.gridFingerprint != current.gridFingerprint)
      what.push_back("the grid or its cluster files changed");
    for (const auto& w : what) d.stampNote += (d.stampNote.empty() ? "" : "; ") + w;
    d.stampNote += ": differences may come from the model or the grid, not the rules";
  }
  return d;
}

} // namespace collsim
