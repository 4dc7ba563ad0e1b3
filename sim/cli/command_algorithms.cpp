// collsim algorithms: what the registry holds, as a table or JSON.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "algorithms/core/registry.h"
#include "sim/cli/command.h"

namespace collsim {
namespace {

struct ListOptions {
  std::string op, format = "table";
};

int list(const ListOptions& o, CliStreams io) {
  Collective filter{};
  if (!o.op.empty() && !parseCollective(o.op, filter)) throw UsageError("--op: unknown collective '" + o.op + "'");
  auto wanted = [&](const AlgorithmEntry& e) { return o.op.empty() || e.op == filter; };
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
  if (o.format == "json") {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const auto& e : listed)
      if (wanted(e))
        all.push_back({{"op", collectiveName(e.op)}, {"algorithm", e.name}, {"summary", e.summary},
                       {"cost", e.formula}, {"supports", supports(e)}});
    io.out << nlohmann::ordered_json{{"algorithms", all}}.dump(2) << "\n";
    return 0;
  }
  if (o.format != "table") throw UsageError("--format: '" + o.format + "' is not table or json");
  std::ostringstream os;
  os << "# a = alpha (per-step latency), b = beta (s/byte on a link), g = gamma (s/byte reduced),\n"
     << "# n = bytes per rank, p = ranks, p' = largest power of two <= p\n";
  for (const auto& e : listed) {
    if (!wanted(e)) continue;
    os << collectiveName(e.op) << " " << e.name << " (" << supports(e) << ")\n"
       << "    " << e.summary << "\n"
       << "    cost: " << e.formula << "\n";
  }
  io.out << os.str();
  return 0;
}

} // namespace

Command addAlgorithmsCommand(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("algorithms", "list the algorithms, what they support and their closed-form cost");
  cmd->add_option("--op", o->op, "only this collective");
  cmd->add_option("--format", o->format, "table or json")->capture_default_str();
  return {cmd, [o](CliStreams io) { return list(*o, io); }};
}

} // namespace collsim
