#include "sim/report/selector_report.h"

#include <algorithm>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/report/text_table.h"

namespace collsim {
namespace {


struct Summary {
  std::size_t optimal = 0;
  double mean = 0, worst = 0;
};

Summary summarize(const std::vector<PointScore>& scores) {
  Summary s;
  for (const auto& p : scores) {
    s.optimal += p.regret() <= 1e-9;
    s.mean += p.regret();
    s.worst = std::max(s.worst, p.regret());
  }
  if (!scores.empty()) s.mean /= double(scores.size());
  return s;
}

std::string headline(const SelectorCheckReport& r) {
  Summary s = summarize(r.scores);
  double share = r.scores.empty() ? 0 : double(s.optimal) / double(r.scores.size());
  return std::to_string(r.scores.size()) + " points; pick optimal at " + std::to_string(s.optimal) + " (" +
         percent(share) + "); regret mean " + percent(s.mean) + ", max " + percent(s.worst);
}

std::string verdict(const BaselineDiff& d) {
  return std::to_string(d.regressions.size()) + " regression(s), " + std::to_string(d.improvements.size()) +
         " improvement(s), " + std::to_string(d.pickChanges.size()) + " pick change(s), " +
         std::to_string(d.added.size()) + " point(s) new to the baseline, " + std::to_string(d.missing.size()) +
         " missing from the grid";
}

std::string table(const SelectorCheckReport& r) {
  std::ostringstream os;
  os << "# collsim selector check: rules " << r.rules << " on grid " << r.grid << "\n# " << headline(r) << "\n";
  std::vector<const PointScore*> byRegret;
  for (const auto& s : r.scores) byRegret.push_back(&s);
  std::stable_sort(byRegret.begin(), byRegret.end(), [](auto* a, auto* b) { return a->regret() > b->regret(); });
  os << "# worst points:\n";
  for (std::size_t i = 0; i < std::min<std::size_t>(5, byRegret.size()) && byRegret[i]->regret() > 0; ++i)
    os << "#   " << byRegret[i]->key << ": " << byRegret[i]->pick << " (" << byRegret[i]->rule << ") vs "
       << byRegret[i]->best << ", regret " << percent(byRegret[i]->regret()) << "\n";
  TextTable t({"point", "pick", "best", "regret"});
  for (const auto& s : r.scores) t.add({s.key, s.pick, s.best, percent(s.regret())});
  os << t.text();
  if (!r.diff) return os.str();
  const BaselineDiff& d = *r.diff;
  os << "# against baseline " << r.baselineFile << " (tolerance " << percent(r.tolerance) << "): " << verdict(d) << "\n";
  if (d.stampDiffers) os << "# NOTE: " << d.stampNote << "\n";
  for (const auto& c : d.regressions)
    os << "#   REGRESSION " << c.key << ": regret " << percent(c.before) << " -> " << percent(c.after) << "\n";
  for (const auto& c : d.improvements)
    os << "#   improvement " << c.key << ": regret " << percent(c.before) << " -> " << percent(c.after) << "\n";
  for (const auto& c : d.pickChanges)
    os << "#   pick " << c.key << ": " << c.oldPick << (c.oldRule.empty() ? "" : " (" + c.oldRule + ")") << " -> "
       << c.newPick << " (" << c.newRule << ")\n";
  for (const auto& k : d.added) os << "#   NEW " << k << ": not in the baseline (update it with --update-baseline)\n";
  for (const auto& k : d.missing) os << "#   MISSING " << k << ": in the baseline, not in the grid\n";
  return os.str();
}

nlohmann::ordered_json changesJson(const std::vector<RegretChange>& v) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& c : v) a.push_back({{"key", c.key}, {"before", c.before}, {"after", c.after}});
  return a;
}

std::string json(const SelectorCheckReport& r) {
  Summary s = summarize(r.scores);
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& p : r.scores)
    points.push_back({{"key", p.key}, {"pick", p.pick}, {"rule", p.rule}, {"best", p.best},
                      {"pick_us", p.pickSeconds * 1e6}, {"best_us", p.bestSeconds * 1e6}, {"regret", p.regret()}});
  nlohmann::ordered_json doc = {
      {"rules", r.rules}, {"grid", r.grid}, {"points", r.scores.size()},
      {"optimal_share", r.scores.empty() ? 0.0 : double(s.optimal) / double(r.scores.size())},
      {"mean_regret", s.mean}, {"max_regret", s.worst}, {"results", points}};
  if (r.diff) {
    const BaselineDiff& d = *r.diff;
    nlohmann::ordered_json picks = nlohmann::ordered_json::array();
    for (const auto& c : d.pickChanges)
      picks.push_back({{"key", c.key}, {"old_pick", c.oldPick}, {"old_rule", c.oldRule}, {"new_pick", c.newPick},
                       {"new_rule", c.newRule}});
    doc["baseline"] = {{"file", r.baselineFile}, {"tolerance", r.tolerance}, {"passed", !d.fails()},
                       {"stamp_differs", d.stampDiffers}, {"stamp_note", d.stampNote}};
    doc["regressions"] = changesJson(d.regressions);
    doc["improvements"] = changesJson(d.improvements);
    doc["pick_changes"] = picks;
    doc["new_points"] = d.added;
    doc["missing_points"] = d.missing;
  } else {
    doc["regressions"] = nlohmann::ordered_json::array();
  }
  return doc.dump(2) + "\n";
}

std::string csv(const SelectorCheckReport& r) {
  std::ostringstream os;
  os << "key,pick,rule,best,pick_us,best_us,regret\n";
  for (const auto& s : r.scores)
    os << csvRow({s.key, s.pick, s.rule, s.best, fixed(s.pickSeconds * 1e6, 3), fixed(s.bestSeconds * 1e6, 3),
                  fixed(s.regret(), 6)});
  return os.str();
}

std::string markdown(const SelectorCheckReport& r) {
  std::ostringstream os;
  os << "## Selector check: rules `" << r.rules << "` on grid `" << r.grid << "`\n\n" << headline(r) << ".\n";
  if (r.diff) {
    const BaselineDiff& d = *r.diff;
    os << "\nAgainst `" << r.baselineFile << "` (tolerance " << percent(r.tolerance) << "): **"
       << (d.fails() ? "FAILED" : "passed") << "**, " << verdict(d) << ".\n";
    if (d.stampDiffers) os << "\n> Note: " << d.stampNote << ".\n";
    if (!d.regressions.empty() || !d.improvements.empty()) {
      TextTable t({"point", "change", "regret before", "regret after"});
      for (const auto& c : d.regressions) t.add({c.key, "regression", percent(c.before), percent(c.after)});
      for (const auto& c : d.improvements) t.add({c.key, "improvement", percent(c.before), percent(c.after)});
      os << "\n" << t.markdown();
    }
    if (!d.pickChanges.empty()) {
      TextTable t({"point", "old pick", "old rule", "new pick", "new rule"});
      for (const auto& c : d.pickChanges) t.add({c.key, c.oldPick, c.oldRule, c.newPick, c.newRule});
      os << "\n" << t.markdown();
    }
    for (const auto& k : d.added) os << "\n- new point, not in the baseline: " << k;
    for (const auto& k : d.missing) os << "\n- in the baseline, missing from the grid: " << k;
    if (!d.added.empty() || !d.missing.empty()) os << "\n";
  }
  std::vector<const PointScore*> worst;
  for (const auto& s : r.scores)
    if (s.regret() > 0) worst.push_back(&s);
  std::stable_sort(worst.begin(), worst.end(), [](auto* a, auto* b) { return a->regret() > b->regret(); });
  if (!worst.empty()) {
    TextTable t({"worst points", "pick", "rule", "best", "regret"});
    for (std::size_t i = 0; i < std::min<std::size_t>(10, worst.size()); ++i)
      t.add({worst[i]->key, worst[i]->pick, worst[i]->rule, worst[i]->best, percent(worst[i]->regret())});
    os << "\n" << t.markdown();
  }
  return os.str();
}

std::string xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += c;
    }
  }
  return out;
}

// One test case per grid point (a regression fails it), one per baseline
// point the grid lost (failed), points new to the baseline fail too: CI
// must not pass on a baseline that does not cover the grid.
std::string junit(const SelectorCheckReport& r) {
  std::map<std::string, const RegretChange*> regressed;
  std::vector<std::string> added, missing;
  if (r.diff) {
    for (const auto& c : r.diff->regressions) regressed[c.key] = &c;
    added = r.diff->added;
    missing = r.diff->missing;
  }
  std::size_t failures = regressed.size() + added.size() + missing.size();
  std::ostringstream os;
  std::string suite = "selector check " + r.rules + " on " + r.grid;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"collsim\" tests=\"" << r.scores.size() + missing.size() << "\" failures=\"" << failures
     << "\">\n  <testsuite name=\"" << xml(suite) << "\" tests=\"" << r.scores.size() + missing.size()
     << "\" failures=\"" << failures << "\">\n";
  for (const auto& s : r.scores) {
    os << "    <testcase classname=\"selector." << xml(r.rules) << "\" name=\"" << xml(s.key) << "\">\n";
    if (auto it = regressed.find(s.key); it != regressed.end())
      os << "      <failure message=\"regret " << percent(it->second->before) << " -&gt; " << percent(it->second->after)
         << "\">pick " << xml(s.pick) << " (" << xml(s.rule) << "), best " << xml(s.best) << "</failure>\n";
    else if (std::find(added.begin(), added.end(), s.key) != added.end())
      os << "      <failure message=\"not in the baseline\">update the baseline with --update-baseline</failure>\n";
    os << "      <system-out>pick " << xml(s.pick) << " (" << xml(s.rule) << "), best " << xml(s.best) << ", regret "
       << percent(s.regret()) << "</system-out>\n    </testcase>\n";
  }
  for (const auto& k : missing)
    os << "    <testcase classname=\"selector." << xml(r.rules) << "\" name=\"" << xml(k)
       << "\">\n      <failure message=\"missing from the grid\">in the baseline, not in the grid</failure>\n"
       << "    </testcase>\n";
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

} // namespace

std::string formatSelectorCheck(const SelectorCheckReport& r, OutputFormat format) {
  if (format == OutputFormat::Table) return table(r);
  if (format == OutputFormat::Json) return json(r);
  if (format == OutputFormat::Csv) return csv(r);
  if (format == OutputFormat::Markdown) return markdown(r);
  if (format == OutputFormat::Junit) return junit(r);
  throw std::logic_error(std::string("a selector check has no ") + outputFormatName(format) + " form");
}

} // namespace collsim
