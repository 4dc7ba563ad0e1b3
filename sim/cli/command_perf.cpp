// collsim perf: an nccl-tests style size sweep on one cluster.
#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>

#include "algorithms/core/registry.h"
#include "sim/core/closest_name.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/core/text_list.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"
#include "sim/config/cluster_config.h"
#include "sim/scenario/scenario.h"
#include "sim/network/network_models.h"

namespace collsim {
namespace {

struct PerfOptions {
  OutputOptions output;
  EnvOptions env;
  std::string cluster, op = "allreduce", dtype = "float32";
  std::vector<std::string> algos{"ring"}; // --algo, repeated or a comma list
  std::string begin = "8", end = "1GiB", segment = "1MiB", fidelity = "fast";
  int channels = 1;
  double factor = 2;
  int root = 0;
  bool verify = true;
};

int perf(const PerfOptions& p, CliStreams io) {
  Scenario s;
  std::vector<std::string> sets = p.output.sets, ncclAlgorithms;
  applyNcclEnv(p.env, p.cluster, sets, ncclAlgorithms, io);
  ClusterSetup setup = loadClusterFile(p.cluster, sets);
  s.cluster = std::move(setup.cluster);
  s.roce = std::move(setup.roce);
  s.library = std::move(setup.library);
  OutputOptions output = p.output;
  output.resolvedInput = setup.resolvedYaml; // the cluster as it ran
  if (!parseCollective(p.op, s.op))
    throw UsageError("--op: " + unknownName("collective", p.op, collectiveNames()));
  for (const auto& a : p.algos) {
    std::vector<std::string> names = algorithmsNamedBy(s.op, a, s.cluster);
    if (names.empty()) names = {a};
    for (const auto& name : names)
      if (std::find(s.algorithms.begin(), s.algorithms.end(), name) == s.algorithms.end()) s.algorithms.push_back(name);
  }
  for (const auto& a : s.algorithms) requireAlgorithm(s.op, a, s.cluster, "--algo");
  s.name = p.op;
  if (s.algorithms.size() > 8) s.name += ", " + std::to_string(s.algorithms.size()) + " algorithms";
  else
    for (std::size_t i = 0; i < s.algorithms.size(); ++i) s.name += (i ? ", " : " ") + s.algorithms[i];
  if (!parseDataType(p.dtype, s.dtype))
    throw UsageError("--dtype: " + unknownName("type", p.dtype, dataTypeNames()));
  if (p.root < 0 || p.root >= s.cluster.ranks()) throw UsageError("--root: no rank " + std::to_string(p.root));
  s.root = p.root;
  Bytes b = optionBytes("-b", p.begin), e = optionBytes("-e", p.end);
  if (b > e) throw UsageError("-b " + p.begin + " is larger than -e " + p.end);
  if (!(p.factor > 1) || !std::isfinite(p.factor)) throw UsageError("-f must be a finite number greater than 1");
  if (double count = geometricCount(double(b), double(e), p.factor); count > kMaxSizes)
    throw UsageError("-b/-e/-f make about " + std::to_string(static_cast<long long>(count)) + " sizes; at most " +
                     std::to_string(int(kMaxSizes)));
  s.sizes = geometricSizes(b, e, p.factor);
  s.simulation.segment = optionBytes("--segment", p.segment);
  s.simulation.channels = p.channels;
  if (s.simulation.segment == 0) throw UsageError("--segment must be positive");
  s.simulation.verify = p.verify;
  if (!parseFidelity(p.fidelity, s.simulation.fidelity)) throw UsageError("--fidelity: '" + p.fidelity + "' is not a network model (" + describeNetworkModels() + ")");
  std::vector<std::string> requested = s.algorithms;
  if (!ncclAlgorithms.empty()) s.algorithms = ncclAlgorithms;
  applyHcclEnv(p.env, s, io);
  if (s.algorithms != requested) { // the header names what runs, after HCCL and NCCL settings
    s.name = p.op;
    for (std::size_t i = 0; i < s.algorithms.size(); ++i) s.name += (i ? ", " : " ") + s.algorithms[i];
  }
  return simulateAndReport(s, "perf", output, io);
}

} // namespace

Command addPerfCommand(CLI::App& app) {
  auto p = std::make_shared<PerfOptions>();
  auto* cmd = app.add_subcommand("perf", "sweep message sizes like nccl-tests' all_reduce_perf");
  cmd->add_option("--cluster", p->cluster, "cluster YAML file")->required();
  cmd->add_option("--op", p->op, "allreduce, reducescatter, allgather, broadcast, reduce, alltoall")->capture_default_str();
  cmd->add_option("--algo", p->algos, "algorithm name, or all (see collsim algorithms); repeat it or give a comma list")
      ->delimiter(',')
      ->capture_default_str();
  addSizeSweepOptions(cmd, p->begin, p->end, p->factor);
  cmd->add_option("-d,--dtype", p->dtype, "element type")->capture_default_str();
  cmd->add_option("-r,--root", p->root, "root rank of broadcast and reduce")->capture_default_str();
  cmd->add_option("--segment", p->segment, "segment size of the fast network model")->capture_default_str();
  cmd->add_option("--channels", p->channels, "run each collective as this many channels (allreduce)")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--fidelity", p->fidelity, "fast (large segments) or packet (RoCE packets, ECN, PFC, DCQCN)")
      ->capture_default_str();
  cmd->add_flag("!--no-verify", p->verify, "skip the symbolic check of the schedule");
  addOutputOptions(cmd, p->output, "override a cluster key: --set hccs.bandwidth=24GB/s (repeatable)");
  addEnvOptions(cmd, p->env);
  return {cmd, [p](CliStreams io) { return perf(*p, io); }};
}

} // namespace collsim
