// collsim hccl-env: the HCCL environment variables collsim understands
// (--list), or what the settings of an env file do on a cluster.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/report/text_table.h"
#include "sim/config/cluster_config.h"
#include "sim/hccl/apply_settings.h"
#include "sim/hccl/hccl_variables.h"

namespace collsim {
namespace {

struct HcclEnvOptions {
  bool list = false;
  std::string envFile, cluster, format = "table", out;
};

int listVariables(const std::string& format, std::ostream& out) {
  const std::vector<std::string> headers = {"variable", "kind", "HCCL's own", "how collsim applies it"};
  auto row = [](const HcclVariable& v) {
    return std::vector<std::string>{v.name, v.real ? "real" : "article's name", v.realName, v.applies};
  };
  if (format == "json") {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& v : hcclVariables())
      all.push_back({{"variable", v.name}, {"real", v.real}, {"hccl_setting", v.realName}, {"applies", v.applies}});
    out << nlohmann::ordered_json{{"hccl_variables", all}}.dump(2) << "\n";
  } else if (format == "csv") {
    out << "variable,kind,hccl_setting,applies\n";
    for (const auto& v : hcclVariables()) out << csvRow(row(v));
  } else {
    TextTable t(headers);
    for (const auto& v : hcclVariables()) t.add(row(v));
    out << (format == "md" ? t.markdown() : t.text());
  }
  return 0;
}

int run(const HcclEnvOptions& o, CliStreams io) {
  if (o.format != "table" && o.format != "json" && o.format != "csv" && o.format != "md")
    throw UsageError("--format: '" + o.format + "' is not table, json, csv or md");
  if (o.list || o.envFile.empty()) return listVariables(o.format, io.out);
  if (o.cluster.empty()) throw UsageError("--env-file needs --cluster (the settings depend on it)");
  ClusterSetup setup = loadClusterFile(o.cluster, {});
  HcclSettings h = interpretHcclSettings(gatherHcclSettings(o.envFile, false, setup.cluster.ranks()), setup.cluster);
  for (const auto& notice : h.notices) io.out << notice << "\n";
  return 0;
}

} // namespace

Command addHcclEnvCommand(CLI::App& app) {
  auto o = std::make_shared<HcclEnvOptions>();
  auto* cmd = app.add_subcommand("hccl-env", "the HCCL_* variables collsim understands, or what an env file does");
  cmd->add_flag("--list", o->list, "list the variables: real or the article's, HCCL's own, how they apply (the default)");
  cmd->add_option("--env-file", o->envFile, "a shell script of export HCCL_...= lines: say what each does");
  cmd->add_option("--cluster", o->cluster, "the cluster file the env file is for");
  cmd->add_option("--format", o->format, "table, json, csv or md (--list)")->capture_default_str();
  addOutOption(cmd, o->out);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return run(*o, to); }); }};
}

} // namespace collsim
