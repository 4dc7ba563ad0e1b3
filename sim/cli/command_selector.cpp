// collsim selector check: scores a rule set on a grid against simulation,
// and against a baseline exits 1 when any point's regret grew.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/cli/command.h"
#include "sim/selector/check.h"
#include "sim/selector/derive.h"

namespace collsim {
namespace {

struct CheckOptions {
  std::string rules, grid, baseline, format = "table", out;
  bool updateBaseline = false;
  double tolerance = 0.01;
  int jobs = 0;
};

std::string percent(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f%%", v * 100);
  return s;
}

int check(const CheckOptions& o, CliStreams io) {
  SelectorRules rules = loadSelectorRulesFile(o.rules);
  Grid grid = loadGridFile(o.grid);
  if (o.updateBaseline && o.baseline.empty()) throw UsageError("--update-baseline needs --baseline FILE");
  int threads = o.jobs > 0 ? o.jobs : int(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<PointScore> scores = scoreRules(rules, grid, threads, io.progress ? &io.err : nullptr);

  std::size_t optimal = 0;
  double sum = 0, worst = 0;
  for (const auto& s : scores) {
    optimal += s.regret() <= 1e-9;
    sum += s.regret();
    worst = std::max(worst, s.regret());
  }
  std::vector<Regression> regressions;
  if (!o.baseline.empty() && !o.updateBaseline) {
    std::ifstream in(o.baseline);
    if (!in) throw UsageError("--baseline: cannot read '" + o.baseline + "' (create it with --update-baseline)");
    std::stringstream text;
    text << in.rdbuf();
    try {
      regressions = compareBaseline(scores, text.str(), o.tolerance);
    } catch (const nlohmann::json::exception& e) {
      throw UsageError("--baseline: '" + o.baseline + "' is not a collsim selector baseline: " + e.what());
    }
  }

  std::ostringstream os;
  if (o.format == "json") {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& s : scores)
      points.push_back({{"key", s.key}, {"pick", s.pick}, {"rule", s.rule}, {"best", s.best},
                        {"pick_us", s.pickSeconds * 1e6}, {"best_us", s.bestSeconds * 1e6}, {"regret", s.regret()}});
    nlohmann::ordered_json regs = nlohmann::ordered_json::array();
    for (const auto& r : regressions) regs.push_back({{"key", r.key}, {"before", r.before}, {"after", r.after}});
    os << nlohmann::ordered_json{{"rules", rules.name}, {"grid", grid.name}, {"points", points.size()},
                                 {"optimal_share", scores.empty() ? 0.0 : double(optimal) / scores.size()},
                                 {"mean_regret", scores.empty() ? 0.0 : sum / scores.size()}, {"max_regret", worst},
                                 {"results", points}, {"regressions", regs}}
              .dump(2)
       << "\n";
  } else if (o.format == "csv") {
    os << "key,pick,rule,best,pick_us,best_us,regret\n";
    for (const auto& s : scores)
      os << '"' << s.key << "\"," << s.pick << ",\"" << s.rule << "\"," << s.best << ',' << s.pickSeconds * 1e6 << ','
         << s.bestSeconds * 1e6 << ',' << s.regret() << "\n";
  } else if (o.format == "table") {
    os << "# collsim selector check: rules " << rules.name << " on grid " << grid.name << "\n"
       << "# " << scores.size() << " points; pick optimal at " << optimal << " (" << percent(scores.empty() ? 0 : double(optimal) / scores.size())
       << "); regret mean " << percent(scores.empty() ? 0 : sum / scores.size()) << ", max " << percent(worst) << "\n";
    std::vector<const PointScore*> byRegret;
    for (const auto& s : scores) byRegret.push_back(&s);
    std::stable_sort(byRegret.begin(), byRegret.end(), [](auto* a, auto* b) { return a->regret() > b->regret(); });
    os << "# worst points:\n";
    for (std::size_t i = 0; i < std::min<std::size_t>(5, byRegret.size()) && byRegret[i]->regret() > 0; ++i)
      os << "#   " << byRegret[i]->key << ": " << byRegret[i]->pick << " (" << byRegret[i]->rule << ") vs "
         << byRegret[i]->best << ", regret " << percent(byRegret[i]->regret()) << "\n";
    char header[200];
    std::snprintf(header, sizeof header, "%-52s %-20s %-20s %9s\n", "# point", "pick", "best", "regret");
    os << header;
    for (const auto& s : scores) {
      char line[256];
      std::snprintf(line, sizeof line, "  %-50s %-20s %-20s %9s\n", s.key.c_str(), s.pick.c_str(), s.best.c_str(),
                    percent(s.regret()).c_str());
      os << line;
    }
    if (!o.baseline.empty() && !o.updateBaseline) {
      os << "# against baseline " << o.baseline << " (tolerance " << percent(o.tolerance) << "): "
         << regressions.size() << " regression(s)\n";
      for (const auto& r : regressions)
        os << "#   REGRESSION " << r.key << ": regret " << percent(r.before) << " -> " << percent(r.after) << "\n";
    }
  } else {
    throw UsageError("--format: table, json or csv");
  }
  if (o.updateBaseline) writeOutputFile("--baseline", o.baseline, baselineJson(rules.name, scores));
  emit(os.str(), o.out, io);
  return regressions.empty() ? 0 : 1;
}

} // namespace

struct DeriveOptions {
  std::string grid, out, name = "derived";
  std::vector<std::string> only;
};

int derive(const DeriveOptions& o, CliStreams io) {
  if (o.out.empty()) throw UsageError("--out: where to write the rules");
  Grid grid = loadGridFile(o.grid);
  std::vector<DerivedRule> rules = deriveRules(grid, o.only, io.progress ? &io.err : nullptr);
  writeOutputFile("--out", o.out, rulesYaml(o.name, o.grid, rules));
  for (const auto& d : rules) {
    const Rule& r = d.rule;
    io.out << d.label << " " << collectiveName(r.ops.front()) << ": " << r.algorithm << " from "
           << formatBytes(Bytes(r.bytes->min));
    if (r.bytes->max < 1e300) io.out << " to " << formatBytes(Bytes(r.bytes->max) + 1);
    io.out << "\n";
  }
  io.out << rules.size() << " rules written to " << o.out << "\n";
  return 0;
}

Command addSelectorCommand(CLI::App& app) {
  auto o = std::make_shared<CheckOptions>();
  auto d = std::make_shared<DeriveOptions>();
  auto* selector = app.add_subcommand("selector", "score selector rules against simulation, or derive them");
  selector->require_subcommand(1);
  auto* deriveCmd = selector->add_subcommand("derive", "derive rules (thresholds at simulated crossovers) from a grid");
  deriveCmd->add_option("--grid", d->grid, "grid YAML")->required();
  deriveCmd->add_option("--out", d->out, "rules YAML to write")->required();
  deriveCmd->add_option("--name", d->name, "name of the rule set")->capture_default_str();
  deriveCmd->add_option("--candidates", d->only, "only these algorithms (repeatable)");
  auto* cmd = selector->add_subcommand("check", "regret of the rules' picks on a grid, against a baseline");
  cmd->add_option("--rules", o->rules, "selector rules YAML")->required();
  cmd->add_option("--grid", o->grid, "grid YAML")->required();
  cmd->add_option("--baseline", o->baseline, "baseline JSON to compare with (or to write)");
  cmd->add_flag("--update-baseline", o->updateBaseline, "write the baseline instead of comparing");
  cmd->add_option("--tolerance", o->tolerance, "allowed regret growth before a point counts as a regression")
      ->capture_default_str()
      ->check(finiteAtLeast(0));
  cmd->add_option("-j,--jobs", o->jobs, "simulation threads (default: all cores)")->check(CLI::Range(1, 1024));
  cmd->add_option("--format", o->format, "table, json or csv")->capture_default_str();
  cmd->add_option("--out", o->out, "write the report to FILE");
  return {selector, [o, d, deriveCmd](CliStreams io) { return deriveCmd->parsed() ? derive(*d, io) : check(*o, io); }};
}

} // namespace collsim
