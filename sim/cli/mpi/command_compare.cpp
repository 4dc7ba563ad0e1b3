// collsim-mpi compare --cluster cluster.yaml: the measured sweep (over MPI)
// and the simulated one (on rank 0, on the cluster file) side by side, with
// the relative error per point and its median and worst.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "sim/cli/mpi/mpi_command.h"
#include "sim/cli/common_options.h"
#include "sim/core/closest_name.h"
#include "sim/run/simulate.h"
#include "sim/config/cluster_config.h"

namespace collsim {
namespace {

struct CompareOptions {
  std::string cluster, op = "allreduce", dtype = "float32", begin = "1KiB", end = "64MiB", segment = "1MiB";
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> algos = {"ring", "rhd", "mesh"};
  double factor = 4;
  int warmup = 3, iterations = 10;
  double timeoutSeconds = 60;
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
  Bytes segment;
  try {
    segment = parseBytes(o.segment);
  } catch (const UnitError& e) {
    throw MpiUsageError(std::string("--segment: ") + e.what());
  }
  std::vector<Bytes> sizes = sweepSizes(o.begin, o.end, o.factor);
  base.elemSize = dataTypeInfo(type).bytes;

  struct Row {
    std::string algorithm;
    Bytes bytes;
    double measuredUs, simulatedUs, error; // error = simulated / measured - 1
  };
  std::vector<Row> rows;
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
                                         std::chrono::milliseconds(std::int64_t(o.timeoutSeconds * 1000)));
      wrong += measured.wrong;
      if (runner.rank() != 0) continue;
      RunRequest req{base.op, &*algo, type, spec.bytes(), segment, false};
      req.roce = setup.roce;
      double simulated = toSeconds(simulateCollective(cluster, req).execution.finish);
      double error = measured.seconds > 0 ? simulated / measured.seconds - 1 : 0;
      errors.push_back(std::abs(error));
      rows.push_back({name, spec.bytes(), measured.seconds * 1e6, simulated * 1e6, error});
    }
  }
  if (runner.rank() != 0) return wrong ? 1 : 0;
  std::sort(errors.begin(), errors.end());
  double median = errors.empty() ? 0 : errors[errors.size() / 2], worst = errors.empty() ? 0 : errors.back();
  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const Row& r : rows)
      all.push_back({{"algorithm", r.algorithm}, {"bytes", r.bytes}, {"measured_us", r.measuredUs},
                     {"simulated_us", r.simulatedUs}, {"error", r.error}});
    nlohmann::ordered_json j = {{"tool", "collsim-mpi"}, {"command", "compare"}, {"op", o.op},
                                {"ranks", runner.size()}, {"cluster", o.cluster}, {"iterations", o.iterations},
                                {"rows", all}, {"median_abs_error", median}, {"worst_abs_error", worst},
                                {"results_correct", wrong == 0}};
    out << j.dump(2) << "\n";
  } else if (o.format == OutputFormat::Table) {
    out << "# collsim-mpi compare: " << o.op << " on " << runner.size() << " MPI ranks against " << o.cluster << "\n"
        << "# error = simulated / measured - 1; measured: mean of " << o.iterations << " iterations, slowest rank\n"
        << "#  algorithm         bytes    measured_us   simulated_us     error\n";
    for (const Row& r : rows) {
      char line[256];
      std::snprintf(line, sizeof line, "  %-10s %12llu %14.2f %14.2f %+9.1f%%\n", r.algorithm.c_str(),
                    (unsigned long long)r.bytes, r.measuredUs, r.simulatedUs, r.error * 100);
      out << line;
    }
    char summary[128];
    std::snprintf(summary, sizeof summary, "# |error|: median %.1f%%, worst %.1f%%%s\n", median * 100, worst * 100,
                  wrong ? "; SOME RESULTS WERE WRONG" : "");
    out << summary;
  } else {
    out << "algorithm,bytes,measured_us,simulated_us,error\n";
    for (const Row& r : rows) {
      char line[256];
      std::snprintf(line, sizeof line, "%s,%llu,%.3f,%.3f,%.4f\n", r.algorithm.c_str(), (unsigned long long)r.bytes,
                    r.measuredUs, r.simulatedUs, r.error);
      out << line;
    }
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
  addSizeSweepOptions(cmd, o->begin, o->end, o->factor);
  cmd->add_option("-d,--dtype", o->dtype, "element type")->capture_default_str();
  cmd->add_option("--segment", o->segment, "simulation segment size")->capture_default_str();
  cmd->add_option("-w,--warmup", o->warmup, "warm-up iterations")->capture_default_str();
  cmd->add_option("-n,--iters", o->iterations, "timed iterations")->capture_default_str();
  addFormatOption(cmd, o->format, kMeasuredFormats);
  addPeerTimeoutOption(cmd, o->timeoutSeconds);
  return {cmd, [o](MpiRunner& runner, std::ostream& out) { return compare(*o, runner, out); }};
}

} // namespace collsim
