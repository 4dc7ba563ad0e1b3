// collsim algorithms: what the registry holds, as a table or JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "algorithms/core/registry.h"
#include "sim/core/closest_name.h"
#include "algorithms/hierarchical/hierarchical.h"
#include "sim/config/cluster_config.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"

namespace collsim {
namespace {

struct ListOptions {
  std::string op, cluster, out;
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets;
};

// Every collective, or the one --op names.
std::vector<Collective> collectivesListed(const ListOptions& o) {
  std::vector<Collective> ops;
  for (const auto& name : collectiveNames()) {
    Collective c{};
    parseCollective(name, c);
    if (o.op.empty() || o.op == name) ops.push_back(c);
  }
  return ops;
}

int list(const ListOptions& o, CliStreams io) {
  Collective filter{};
  if (!o.op.empty() && !parseCollective(o.op, filter)) throw UsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  std::optional<Cluster> cluster;
  if (!o.cluster.empty()) cluster = loadClusterFile(o.cluster, o.sets).cluster;
  // With --cluster, only what can run on it.
  auto wanted = [&](const AlgorithmEntry& e) {
    return (o.op.empty() || e.op == filter) && (!cluster || resolveAlgorithm(e.op, e.name, *cluster));
  };
  // On a cluster of several servers, the hierarchies that can run on it.
  auto hierarchies = [&](Collective op) {
    std::vector<std::string> names;
    if (cluster && cluster->servers > 1)
      for (const auto& name : hierarchyNames(op))
        if (resolveAlgorithm(op, name, *cluster)) names.push_back(name);
    return names;
  };
  // Rank counts every entry is asked about, to show what it supports.
  const int probes[] = {1, 2, 3, 7, 8, 64, 4096};
  auto supports = [&](const AlgorithmEntry& e) {
    std::string s;
    for (int p : probes)
      if (!e.unsupported(CollectiveSpec{e.op, p, 0, 4, 0}).empty()) s += (s.empty() ? "not p=" : ",") + std::to_string(p);
    return s.empty() ? std::string("any p") : s;
  };
  // The in-network ones last: they say what switch they need.
  std::vector<AlgorithmEntry> listed = algorithmRegistry();
  listed.insert(listed.end(), inNetworkRegistry().begin(), inNetworkRegistry().end());
  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& e : listed)
      if (wanted(e))
        all.push_back({{"op", collectiveName(e.op)}, {"algorithm", e.name}, {"summary", e.summary},
                       {"cost", e.formula}, {"supports", supports(e)}});
    nlohmann::ordered_json doc{{"algorithms", all}};
    if (cluster) {
      doc["cluster"] = cluster->name;
      nlohmann::ordered_json h = nlohmann::ordered_json::object();
      for (Collective op : collectivesListed(o))
        if (auto names = hierarchies(op); !names.empty()) h[collectiveName(op)] = names;
      doc["hierarchical"] = h;
    }
    io.out << doc.dump(2) << "\n";
    return 0;
  }
  std::ostringstream os;
  os << "# a = alpha (per-step latency), b = beta (s/byte on a link), g = gamma (s/byte reduced),\n"
     << "# n = bytes per rank, p = ranks, p' = largest power of two <= p\n";
  for (const auto& e : listed) {
    if (!wanted(e)) continue;
    os << collectiveName(e.op) << " " << e.name << " (" << supports(e) << ")\n"
       << "    " << e.summary << "\n"
       << "    cost: " << e.formula << "\n";
  }
  if (cluster) {
    os << "# on " << cluster->name << " (" << cluster->description << ")"
       << (cluster->servers > 1 ? ", with the hierarchies (hier:A+B; hierpipe:A+B pipelines slices):\n"
                                : ": one server, no hierarchies\n");
    for (Collective op : collectivesListed(o)) {
      std::vector<std::string> names = hierarchies(op);
      if (names.empty()) continue;
      os << collectiveName(op) << " hierarchical (" << names.size() << "):";
      for (std::size_t i = 0; i < names.size(); ++i) os << (i % 6 == 0 ? "\n    " : " ") << names[i];
      os << "\n";
    }
  }
  io.out << os.str();
  return 0;
}

} // namespace

Command addAlgorithmsCommand(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("algorithms", "list the algorithms, what they support and their closed-form cost");
  cmd->add_option("--op", o->op, "only this collective");
  addFormatOption(cmd, o->format, kReportFormats);
  cmd->add_option("--cluster", o->cluster, "only what runs on this cluster, with its hierarchical compositions");
  cmd->add_option("--set", o->sets, "override a cluster key (repeatable)");
  addOutOption(cmd, o->out);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return list(*o, to); }); }};
}

} // namespace collsim
