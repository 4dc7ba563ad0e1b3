// collsim-mpi compare --cluster cluster.yaml: the measured sweep (over MPI)
// and the simulated one (on rank 0, on the cluster file) side by side, with
// the relative error per point and its median and worst.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "sim/cli/mpi/mpi_command.h"
#include "sim/core/closest_name.h"
#include "sim/run/simulate.h"
#include "sim/config/cluster_config.h"

namespace collsim {
namespace {

struct CompareOptions {
  std::string cluster, op = "allreduce", dtype = "float32", begin = "1KiB", end = "64MiB", segment = "1MiB";
  std::string format = "table";
  std::vector<std::string> algos = {"ring", "rhd", "mesh"};
  double factor = 4;
  int warmup = 3, iterations = 10;
};

int compare(const CompareOptions& o, MpiRunner& runner, std::ostream& out) {
  if (std::string warning = runner.oversubscription(); !warning.empty() && runner.rank() == 0)
    std::cerr << "collsim-mpi: " << warning << "\n";
  ClusterSetup setup = loadClusterFile(o.cluster, {});
  const Cluster& cluster = setup.cluster;
  if (cluster.ranks() != runner.size())
    throw MpiUsageError("the cluster has " + std::to_string(cluster.ranks()) + " devices; run with -np " +
                        std::to_string(cluster.ranks()));
  CollectiveSpec base = layoutOf(cluster, Collective::AllReduce);
  if (!parseCollective(o.op, base.op)) throw MpiUsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  DataType type;
  if (!parseDataType(o.dtype, type) || !canReduce(type)) throw MpiUsageError("--dtype: int8, int32, float32 or float64");
  if (o.format != "table" && o.format != "csv") throw MpiUsageError("--format: table or csv");
  Bytes segment;
  try {
    segment = parseBytes(o.segment);
  } catch (const UnitError& e) {
    throw MpiUsageError(std::string("--segment: ") + e.what());
  }
  std::vector<Bytes> sizes = sweepSizes(o.begin, o.end, o.factor);
  base.elemSize = dataTypeInfo(type).bytes;

  std::ostringstream rows;
  std::vector<double> errors;
  std::uint64_t wrong = 0;
  for (const auto& name : o.algos) {
    auto algo = findAlgorithm(base.op, name);
    if (!algo) throw MpiUsageError("--algo: no algorithm '" + name + "' for " + o.op + didYouMean(name, algorithmNames(base.op)));
    if (std::string why = algo->unsupported(base); !why.empty()) throw MpiUsageError("--algo: " + name + ": " + why);
    for (Bytes size : sizes) {
      CollectiveSpec spec = base;
      spec.count = size / spec.elemSize;
      MpiRunResult measured = runner.run(*algo, spec, type, ReduceOp::Sum, o.warmup, o.iterations,
                                         std::chrono::milliseconds(60'000));
      wrong += measured.wrong;
      if (runner.rank() != 0) continue;
      RunRequest req{base.op, &*algo, type, spec.bytes(), segment, false};
      req.roce = setup.roce;
      double simulated = toSeconds(simulateCollective(cluster, req).execution.finish);
      double error = measured.seconds > 0 ? simulated / measured.seconds - 1 : 0;
      errors.push_back(std::abs(error));
      char line[256];
      if (o.format == "table")
        std::snprintf(line, sizeof line, "  %-10s %12llu %14.2f %14.2f %+9.1f%%\n", name.c_str(),
                      (unsigned long long)spec.bytes(), measured.seconds * 1e6, simulated * 1e6, error * 100);
      else
        std::snprintf(line, sizeof line, "%s,%llu,%.3f,%.3f,%.4f\n", name.c_str(), (unsigned long long)spec.bytes(),
                      measured.seconds * 1e6, simulated * 1e6, error);
      rows << line;
    }
  }
  if (runner.rank() != 0) return wrong ? 1 : 0;
  std::sort(errors.begin(), errors.end());
  double median = errors.empty() ? 0 : errors[errors.size() / 2], worst = errors.empty() ? 0 : errors.back();
  if (o.format == "table") {
    out << "# collsim-mpi compare: " << o.op << " on " << runner.size() << " MPI ranks against " << o.cluster << "\n"
        << "# error = simulated / measured - 1; measured: mean of " << o.iterations << " iterations, slowest rank\n"
        << "#  algorithm         bytes    measured_us   simulated_us     error\n"
        << rows.str();
    char summary[128];
    std::snprintf(summary, sizeof summary, "# |error|: median %.1f%%, worst %.1f%%%s\n", median * 100, worst * 100,
                  wrong ? "; SOME RESULTS WERE WRONG" : "");
    out << summary;
  } else {
    out << "algorithm,bytes,measured_us,simulated_us,error\n" << rows.str();
  }
  return wrong ? 1 : 0;
}

} // namespace

MpiCommand addMpiCompareCommand(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "measured (MPI) against simulated times, per algorithm and size");
  cmd->add_option("--cluster", o->cluster, "cluster YAML (e.g. from calibrate)")->required();
  cmd->add_option("--op", o->op, "collective")->capture_default_str();
  cmd->add_option("--algo", o->algos, "algorithms (repeatable)")->capture_default_str();
  cmd->add_option("-b,--minbytes", o->begin, "smallest size")->capture_default_str();
  cmd->add_option("-e,--maxbytes", o->end, "largest size")->capture_default_str();
  cmd->add_option("-f,--stepfactor", o->factor, "size multiplier")->capture_default_str();
  cmd->add_option("-d,--dtype", o->dtype, "element type")->capture_default_str();
  cmd->add_option("--segment", o->segment, "simulation segment size")->capture_default_str();
  cmd->add_option("-w,--warmup", o->warmup, "warm-up iterations")->capture_default_str();
  cmd->add_option("-n,--iters", o->iterations, "timed iterations")->capture_default_str();
  cmd->add_option("--format", o->format, "table or csv")->capture_default_str();
  return {cmd, [o](MpiRunner& runner, std::ostream& out) { return compare(*o, runner, out); }};
}

} // namespace collsim
