// collsim select: which algorithm the rules pick for one case, and with
// --explain the rule that fired and every candidate's simulated time.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdio>
#include <sstream>

#include "default_rules.h"
#include "sim/core/closest_name.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/config/cluster_config.h"
#include "sim/hccl/apply_settings.h"
#include "sim/selector/selector.h"
#include "sim/validation/library_algorithms.h"

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
  // An NCCL cluster picks as NCCL does (its tuning model); HCCL's 910B
  // rules answer there only when asked for by --rules, and say so.
  const bool nccl = setup.library.kind == LibraryKind::Nccl;
  SelectorRules rules = o.rules.empty() ? defaultSelectorRules() : loadSelectorRulesFile(o.rules);
  Choice choice;
  std::string note;
  if (nccl && o.rules.empty()) {
    const NcclPicker picker(op, setup);
    const NcclPicker::Pick pick = picker.pick(ncclAlgorithms(op, cluster), bytes);
    if (pick.algorithm.empty()) throw UsageError("--cluster " + o.cluster + ": NCCL has no algorithm for " + o.op + " here");
    choice = {pick.algorithm, picker.rule() + (pick.protocol ? std::string(": ") + protocolName(*pick.protocol) : ""),
              "NCCL's tuning model"};
    rules.name = "nccl";
  } else {
    choice = choose(rules, op, bytes, cluster);
    if (nccl)
      note = "the cluster's library is NCCL; these are the rules of " + rules.name +
             ", not NCCL's (without --rules, select answers with NCCL's tuning model)";
  }
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
  if (o.explain) {
    times = simulateCandidates(op, bytes, setup);
    // The library's pick may be none of the general candidates (NCCL's NVLS on a reducing switch).
    auto picked = [&](const CandidateTime& t) { return t.algorithm == choice.algorithm; };
    if (std::none_of(times.begin(), times.end(), picked)) {
      times.push_back({choice.algorithm, simulateOne(op, bytes, setup, choice.algorithm)});
      std::stable_sort(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
    }
  }

  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json j = {{"op", o.op}, {"bytes", bytes}, {"cluster", cluster.name},
                                {"library", libraryName(setup.library.kind)}, {"rules", rules.name},
                                {"algorithm", choice.algorithm}, {"rule", choice.rule}, {"source", choice.source}};
    if (!note.empty()) j["note"] = note;
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
       << (note.empty() ? "" : "# note: " + note + "\n")
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
  cmd->add_option("--rules", o->rules, "selector rules YAML (default: on an NCCL cluster NCCL's tuning model, else the built-in configs/selector/hccl-910b.yaml)");
  cmd->add_flag("--explain", o->explain, "show the rule that fired and every candidate's simulated time");
  addFormatOption(cmd, o->format, kReportFormats);
  cmd->add_option("--set", o->sets, "override a cluster key (repeatable)");
  addOutOption(cmd, o->out);
  addEnvOptions(cmd, o->env);
  addWorkLimitOptions(cmd, o->limits);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return select(*o, to); }); }};
}

} // namespace collsim
