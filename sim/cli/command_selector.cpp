// collsim selector check: scores a rule set on a grid against simulation;
// against a baseline it exits 1 when a point's regret grew or the baseline
// does not cover the grid (selector_report.h prints what changed).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/report/selector_report.h"
#include "sim/core/parallel.h"
#include "sim/config/config_node.h"
#include "sim/config/input_file.h"
#include "sim/selector/baseline.h"
#include "sim/selector/derive.h"

namespace collsim {
namespace {

struct CheckOptions {
  std::string rules, grid, baseline, out;
  OutputFormat format = OutputFormat::Table;
  bool updateBaseline = false;
  double tolerance = 0.01;
  int jobs = 0;
  WorkLimitOptions limits;
};

int check(const CheckOptions& o, CliStreams io) {
  if (o.updateBaseline && o.baseline.empty()) throw UsageError("--update-baseline needs --baseline FILE");
  SelectorRules rules = loadSelectorRulesFile(o.rules);
  Grid grid = loadGridFile(o.grid);
  BaselineStamp stamp{COLLSIM_VERSION_STRING, grid.fingerprint};
  // Read the baseline before hours of simulation, not after.
  std::optional<Baseline> baseline;
  if (!o.baseline.empty() && !o.updateBaseline) {
    std::string text;
    try {
      text = readInputFile(o.baseline, "--baseline");
    } catch (const ConfigError& e) {
      throw UsageError(std::string(e.what()) + " (create it with --update-baseline)");
    }
    baseline = parseBaseline(text, o.baseline);
  }
  if (!rules.derivedFromFingerprint.empty() && rules.derivedFromFingerprint == grid.fingerprint)
    io.err << "collsim: warning: " << o.rules << " was derived on this grid (" << grid.name
           << "): its regret shows how well the crossovers were found, not how the rules do elsewhere; "
              "check it on a grid of other sizes and shapes\n";
  SelectorCheckReport report;
  report.rules = rules.name;
  report.grid = grid.name;
  report.baselineFile = o.baseline;
  report.tolerance = o.tolerance;
  const int threads = o.jobs > 0 ? o.jobs : hardwareThreads();
  if (!checkWork(o.limits, threads, "selector check on " + grid.name, io,
                 [&](const WorkLimits* stop) { return estimateRuleScores(grid, stop); }))
    return 0;
  report.scores = scoreRules(rules, grid, threads, io.progress ? &io.err : nullptr);
  if (baseline) report.diff = compareBaseline(report.scores, stamp, *baseline, o.tolerance);
  std::string text = formatSelectorCheck(report, o.format);
  if (o.updateBaseline) {
    writeOutputFile("--baseline", o.baseline, baselineJson(rules.name, stamp, report.scores));
    io.err << "collsim: wrote baseline " << o.baseline << ": " << report.scores.size() << " points of grid "
           << grid.name << " (fingerprint " << grid.fingerprint << "), rules " << rules.name << ", collsim "
           << COLLSIM_VERSION_STRING << "\n";
  }
  emit(text, o.out, io);
  return report.diff && report.diff->fails() ? 1 : 0;
}

} // namespace

struct DeriveOptions {
  std::string grid, out, name = "derived";
  std::vector<std::string> only;
  WorkLimitOptions limits;
};

int derive(const DeriveOptions& o, CliStreams io) {
  if (o.out.empty()) throw UsageError("--out: where to write the rules");
  Grid grid = loadGridFile(o.grid);
  if (!checkWork(o.limits, 1, "selector derive on " + grid.name, io,
                 [&](const WorkLimits* stop) { return estimateDerive(grid, o.only, stop); }))
    return 0;
  std::vector<DerivedRule> rules = deriveRules(grid, o.only, io.progress ? &io.err : nullptr);
  writeOutputFile("--out", o.out, rulesYaml(o.name, o.grid, grid, rules));
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
  addWorkLimitOptions(deriveCmd, d->limits);
  auto* cmd = selector->add_subcommand("check", "regret of the rules' picks on a grid, against a baseline");
  cmd->add_option("--rules", o->rules, "selector rules YAML")->required();
  cmd->add_option("--grid", o->grid, "grid YAML")->required();
  cmd->add_option("--baseline", o->baseline, "baseline JSON to compare with (or to write)");
  cmd->add_flag("--update-baseline", o->updateBaseline, "write the baseline instead of comparing");
  cmd->add_option("--tolerance", o->tolerance, "allowed regret growth before a point counts as a regression")
      ->capture_default_str()
      ->check(finiteAtLeast(0));
  cmd->add_option("-j,--jobs", o->jobs, "simulation threads (default: all cores)")->check(CLI::Range(1, 1024));
  addFormatOption(cmd, o->format, kCheckFormats);
  addWorkLimitOptions(cmd, o->limits);
  cmd->add_option("--out", o->out, "write the report to FILE");
  return {selector, [o, d, deriveCmd](CliStreams io) { return deriveCmd->parsed() ? derive(*d, io) : check(*o, io); }};
}

} // namespace collsim
