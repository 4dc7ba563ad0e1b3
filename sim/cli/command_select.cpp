// collsim select: which algorithm the rules pick for one case, and with
// --explain the rule that fired and every candidate's simulated time.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <cstdio>
#include <sstream>

#include "default_rules.h"
#include "sim/core/closest_name.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/config/cluster_config.h"
#include "sim/hccl/apply_settings.h"
#include "sim/selector/selector.h"

namespace collsim {

SelectorRules defaultSelectorRules() { return loadSelectorRulesText(kDefaultRulesYaml, kDefaultRulesLabel); }

namespace {

struct SelectOptions {
  std::string cluster, op = "allreduce", bytes = "64MiB", rules, out;
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets;
  bool explain = false;
  EnvOptions env;
  WorkLimitOptions limits; // --explain simulates every candidate
};

int select(const SelectOptions& o, CliStreams io) {
  ClusterSetup setup = loadClusterFile(o.cluster, o.sets);
  Cluster& cluster = setup.cluster;
  Collective op;
  if (!parseCollective(o.op, op)) throw UsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  Bytes bytes = optionBytes("--bytes", o.bytes);
  SelectorRules rules = o.rules.empty() ? defaultSelectorRules() : loadSelectorRulesFile(o.rules);
  Choice choice = choose(rules, op, bytes, cluster);
  HcclSettings hccl = interpretHcclSettings(gatherHcclSettings(o.env.file, o.env.process, cluster.ranks()), cluster);
  applyHcclSettings(hccl, cluster, setup.roce);
  if (auto it = hccl.algorithm.find(op); it != hccl.algorithm.end())
    choice = {it->second, "HCCL settings", "automatic selection is off"};
  std::vector<CandidateTime> times;
  if (o.explain || o.limits.estimateOnly) {
    // Without --explain nothing is simulated: the estimate is of nothing.
    auto estimate = [&](const WorkLimits* stop) {
      return o.explain ? estimateCandidates(op, bytes, setup, stop) : WorkEstimate{};
    };
    if (!checkWork(o.limits, 1, o.explain ? "select --explain" : "select", io, estimate)) return 0;
  }
  if (o.explain) times = simulateCandidates(op, bytes, setup);

  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json j = {{"op", o.op}, {"bytes", bytes}, {"cluster", cluster.name}, {"rules", rules.name},
                                {"algorithm", choice.algorithm}, {"rule", choice.rule}, {"source", choice.source}};
    if (o.explain) {
      nlohmann::ordered_json c = nlohmann::ordered_json::array();
      for (const auto& t : times) c.push_back({{"algorithm", t.algorithm}, {"time_us", t.seconds * 1e6}});
      j["candidates"] = c;
    }
    io.out << j.dump(2) << "\n";
    return 0;
  }
  std::ostringstream os;
  os << choice.algorithm << "\n";
  if (o.explain) {
    os << "# " << o.op << " of " << formatBytes(bytes) << " on " << cluster.name << " (" << cluster.description << ")\n"
       << "# rules " << rules.name << ": " << choice.rule << " [" << choice.source << "]\n"
       << "# candidates, simulated (fastest first):\n";
    for (const auto& n : hccl.notices) os << "# " << n.text() << "\n";
    for (const auto& t : times) {
      char line[160];
      std::snprintf(line, sizeof line, "#   %-22s %14.3f us %s\n", t.algorithm.c_str(), t.seconds * 1e6,
                    t.algorithm == choice.algorithm ? "<- picked" : "");
      os << line;
    }
  }
  io.out << os.str();
  return 0;
}

} // namespace

Command addSelectCommand(CLI::App& app) {
  auto o = std::make_shared<SelectOptions>();
  auto* cmd = app.add_subcommand("select", "the algorithm the selector rules pick for one case");
  cmd->add_option("--cluster", o->cluster, "cluster YAML")->required();
  cmd->add_option("--op", o->op, "collective")->capture_default_str();
  cmd->add_option("--bytes", o->bytes, "message size")->capture_default_str();
  cmd->add_option("--rules", o->rules, "selector rules YAML (default: the built-in configs/selector/hccl-910b.yaml)");
  cmd->add_flag("--explain", o->explain, "show the rule that fired and every candidate's simulated time");
  addFormatOption(cmd, o->format, kReportFormats);
  cmd->add_option("--set", o->sets, "override a cluster key (repeatable)");
  addOutOption(cmd, o->out);
  addEnvOptions(cmd, o->env);
  addWorkLimitOptions(cmd, o->limits);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return select(*o, to); }); }};
}

} // namespace collsim
