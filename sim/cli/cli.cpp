#include "sim/cli/cli.h"

#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>

#include "default_scenario.h"
#include "sim/cli/execute.h"
#include "sim/scenario/cluster_config.h"
#include "sim/scenario/config_node.h"
#include "sim/trace/trace_recorder.h"
#include "topologies/cluster.h"

namespace collsim {
namespace {

// Bad input from the command line itself.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CommonOptions {
  std::string format = "table";
  std::string out;
  std::string trace;
  std::uint64_t seed = 1;
  std::vector<std::string> sets;
};

void addCommon(CLI::App* cmd, CommonOptions& o, const char* setHelp) {
  cmd->add_option("--format", o.format, "table, json, csv or md")->capture_default_str();
  cmd->add_option("--out", o.out, "write the results to FILE instead of standard output");
  cmd->add_option("--trace", o.trace, "write a Chrome trace-event JSON file (Perfetto)");
  cmd->add_option("--seed", o.seed, "random seed (runs are deterministic per seed)")->capture_default_str();
  cmd->add_option("--set", o.sets, setHelp);
}

// Writes via a temporary file and a rename, so a failed run leaves nothing.
void writeFileAtomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << content) || !f.flush()) {
      std::filesystem::remove(tmp);
      throw UsageError("cannot write '" + path + "'");
    }
  }
  std::filesystem::rename(tmp, path);
}

Bytes optionBytes(const std::string& option, const std::string& value) {
  try {
    return parseBytes(value);
  } catch (const UnitError& e) {
    throw UsageError(option + ": " + e.what());
  }
}

int finish(const Scenario& scenario, const std::string& command, const CommonOptions& o, CliStreams io) {
  OutputFormat format;
  if (!parseOutputFormat(o.format, format)) throw UsageError("--format: '" + o.format + "' is not table, json, csv or md");
  TraceRecorder recorder;
  ExecuteOptions options{o.trace.empty() ? nullptr : &recorder, io.progress ? &io.err : nullptr, o.seed};
  Report report = executeScenario(scenario, command, options);
  std::string text = formatReport(report, format);
  if (!o.trace.empty()) {
    writeFileAtomically(o.trace, recorder.json());
    if (recorder.truncated()) io.err << "collsim: note: the trace was cut at its event limit\n";
  }
  if (o.out.empty()) io.out << text;
  else writeFileAtomically(o.out, text);
  return 0;
}

int runCommand(const std::string& file, const CommonOptions& o, CliStreams io) {
  Scenario s = file.empty()
                   ? loadScenarioText(kDefaultScenarioYaml, "<embedded default scenario>", ".", o.sets)
                   : loadScenarioFile(file, o.sets);
  return finish(s, "run", o, io);
}

struct PerfOptions {
  std::string cluster, op = "allreduce", algo = "ring", dtype = "float32";
  std::string begin = "8", end = "1GiB", segment = "1MiB";
  double factor = 2;
  bool verify = true;
};

int perfCommand(const PerfOptions& p, const CommonOptions& o, CliStreams io) {
  Scenario s;
  s.cluster = loadClusterFile(p.cluster, o.sets);
  s.name = p.op + " " + p.algo;
  if (!parseCollective(p.op, s.op)) throw UsageError("--op: unknown collective '" + p.op + "'");
  s.algorithms = p.algo == "all" ? algorithmNames(s.op) : std::vector<std::string>{p.algo};
  for (const auto& a : s.algorithms) {
    const AlgorithmEntry* entry = findAlgorithm(s.op, a);
    if (!entry) throw UsageError("--algo: no algorithm '" + a + "' for " + p.op);
    if (std::string why = entry->unsupported(s.cluster.ranks()); !why.empty())
      throw UsageError("--algo: " + a + " cannot run on " + std::to_string(s.cluster.ranks()) + " ranks: " + why);
  }
  if (!parseDataType(p.dtype, s.dtype)) throw UsageError("--dtype: unknown type '" + p.dtype + "'");
  Bytes b = optionBytes("-b", p.begin), e = optionBytes("-e", p.end);
  if (b > e) throw UsageError("-b " + p.begin + " is larger than -e " + p.end);
  if (!(p.factor > 1)) throw UsageError("-f must be greater than 1");
  s.sizes = geometricSizes(b, e, p.factor);
  s.simulation.segment = optionBytes("--segment", p.segment);
  if (s.simulation.segment == 0) throw UsageError("--segment must be positive");
  s.simulation.verify = p.verify;
  return finish(s, "perf", o, io);
}

} // namespace

int runCli(int argc, const char* const* argv, CliStreams io) {
  CLI::App app{"collsim: a discrete-event simulator of collective communication on NPU/GPU clusters"};
  app.require_subcommand(1);

  CommonOptions runOpts;
  std::string scenarioFile;
  auto* run = app.add_subcommand("run", "run a scenario YAML (without one: the embedded seed 8-card default)");
  run->add_option("scenario", scenarioFile, "scenario YAML file");
  addCommon(run, runOpts, "override a scenario key: --set cluster.hccs.bandwidth=24GB/s (repeatable)");

  CommonOptions perfOpts;
  PerfOptions perf;
  auto* perfCmd = app.add_subcommand("perf", "sweep message sizes like nccl-tests' all_reduce_perf");
  perfCmd->add_option("--cluster", perf.cluster, "cluster YAML file")->required();
  perfCmd->add_option("--op", perf.op, "allreduce, reducescatter, allgather, ...")->capture_default_str();
  perfCmd->add_option("--algo", perf.algo, "algorithm name, or all")->capture_default_str();
  perfCmd->add_option("-b,--minbytes", perf.begin, "smallest size")->capture_default_str();
  perfCmd->add_option("-e,--maxbytes", perf.end, "largest size")->capture_default_str();
  perfCmd->add_option("-f,--stepfactor", perf.factor, "size multiplier")->capture_default_str();
  perfCmd->add_option("-d,--dtype", perf.dtype, "element type")->capture_default_str();
  perfCmd->add_option("--segment", perf.segment, "network segment size (4096 for packet-level)")->capture_default_str();
  perfCmd->add_flag("!--no-verify", perf.verify, "skip the symbolic check of the schedule");
  addCommon(perfCmd, perfOpts, "override a cluster key: --set hccs.bandwidth=24GB/s (repeatable)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, io.out, io.err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, io.out, io.err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, io.out, io.err);
    return 2;
  }

  try {
    if (*run) return runCommand(scenarioFile, runOpts, io);
    return perfCommand(perf, perfOpts, io);
  } catch (const ConfigError& e) {
    io.err << "collsim: error: " << e.what() << "\n";
    return 2;
  } catch (const UsageError& e) {
    io.err << "collsim: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    io.err << "collsim: internal error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace collsim
