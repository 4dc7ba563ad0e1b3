// collsim hccl-env: the HCCL environment variables collsim understands
// (--list), or what the settings of an env file do on a cluster.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/report/text_table.h"
#include "sim/config/cluster_config.h"
#include "sim/hccl/apply_settings.h"
#include "sim/hccl/hccl_variables.h"

namespace collsim {
namespace {

struct HcclEnvOptions {
  bool list = false;
  std::string envFile, cluster, out;
  OutputFormat format = OutputFormat::Table;
};

// Rows as a table, Markdown or CSV (`keys` are CSV's headers); JSON is the caller's.
void writeRows(OutputFormat format, const std::vector<std::string>& headers, const std::vector<std::string>& keys,
               const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  if (format == OutputFormat::Csv) {
    out << csvRow(keys);
    for (const auto& r : rows) out << csvRow(r);
    return;
  }
  TextTable t(headers);
  for (const auto& r : rows) t.add(r);
  out << (format == OutputFormat::Markdown ? t.markdown() : t.text());
}

int listVariables(OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::Json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& v : hcclVariables())
      all.push_back({{"variable", v.name}, {"real", v.real}, {"hccl_setting", v.realName}, {"applies", v.applies}});
    out << nlohmann::ordered_json{{"hccl_variables", all}}.dump(2) << "\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& v : hcclVariables()) rows.push_back({v.name, v.real ? "real" : "article's name", v.realName, v.applies});
  writeRows(format, {"variable", "kind", "HCCL's own", "how collsim applies it"},
            {"variable", "kind", "hccl_setting", "applies"}, rows, out);
  return 0;
}

// What each setting of an env file does on the cluster, one row a setting.
void reportSettings(const HcclSettings& h, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::Json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& n : h.notices)
      all.push_back({{"origin", n.origin}, {"variable", n.name}, {"value", n.value}, {"effect", n.effect}});
    out << nlohmann::ordered_json{{"hccl_settings", all}}.dump(2) << "\n";
    return;
  }
  if (format == OutputFormat::Table) { // the notices as collsim prints them elsewhere
    for (const auto& n : h.notices) out << n.text() << "\n";
    return;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& n : h.notices) rows.push_back({n.origin, n.name, n.value, n.effect});
  writeRows(format, {"where", "variable", "value", "what collsim does"}, {"origin", "variable", "value", "effect"}, rows,
            out);
}

int run(const HcclEnvOptions& o, CliStreams io) {
  if (o.list || o.envFile.empty()) return listVariables(o.format, io.out);
  if (o.cluster.empty()) throw UsageError("--env-file needs --cluster (the settings depend on it)");
  ClusterSetup setup = loadClusterFile(o.cluster, {});
  HcclSettings h = interpretHcclSettings(gatherHcclSettings(o.envFile, false, setup.cluster.ranks()), setup.cluster);
  reportSettings(h, o.format, io.out);
  return 0;
}

} // namespace

Command addHcclEnvCommand(CLI::App& app) {
  auto o = std::make_shared<HcclEnvOptions>();
  auto* cmd = app.add_subcommand("hccl-env", "the HCCL_* variables collsim understands, or what an env file does");
  cmd->add_flag("--list", o->list, "list the variables: real or the article's, HCCL's own, how they apply (the default)");
  cmd->add_option("--env-file", o->envFile, "a shell script of export HCCL_...= lines: say what each does");
  cmd->add_option("--cluster", o->cluster, "the cluster file the env file is for");
  addFormatOption(cmd, o->format, kRowFormats);
  addOutOption(cmd, o->out);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return run(*o, to); }); }};
}

} // namespace collsim
