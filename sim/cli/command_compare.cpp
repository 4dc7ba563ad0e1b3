// collsim compare: a measured nccl-tests or hccl_test log against collsim's
// prediction of the same collective on a cluster (sim/validation/compare.h).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/cli/text_table.h"
#include "sim/validation/compare.h"

namespace collsim {
namespace {

struct CompareCliOptions {
  std::string measured, cluster, algo = "ring", op, minBytes = "64KiB", format = "table";
  std::vector<std::string> sets;
  int channels = 1;
};

std::string table(const MeasuredCurve& curve, const Comparison& c, const std::string& clusterName) {
  std::string s = "# " + curve.source + ": " + curve.tool + ", " + collectiveName(c.op) + " " +
                  dataTypeInfo(curve.dtype).name + ", " + std::to_string(c.ranks) + " ranks; predicted: " + c.algorithm +
                  " on " + clusterName + "\n";
  TextTable t({"size", "bytes", "measured_us", "predicted_us", "error", "line_us", "line_error"});
  for (const auto& p : c.points)
    t.add({formatBytes(p.bytes), std::to_string(p.bytes), fixed(p.measuredUs, 2), fixed(p.predictedUs, 2),
           percent(p.error()), fixed(p.lineUs, 2), percent(p.lineError())});
  s += t.text();
  s += "# median |error| " + percent(c.medianAbsError) + ", max " + percent(c.maxAbsError) +
       "; the two-point line through the end sizes: median " + percent(c.lineMedianAbsError) + ", max " +
       percent(c.lineMaxAbsError) + "\n";
  return s;
}

std::string json(const MeasuredCurve& curve, const Comparison& c, const std::string& clusterName) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& p : c.points)
    points.push_back({{"bytes", p.bytes}, {"measured_us", p.measuredUs}, {"predicted_us", p.predictedUs},
                      {"error", p.error()}, {"line_us", p.lineUs}, {"line_error", p.lineError()}});
  nlohmann::ordered_json j = {{"measured", curve.source}, {"tool", curve.tool},     {"op", collectiveName(c.op)},
                              {"dtype", dataTypeInfo(curve.dtype).name},          {"ranks", c.ranks},
                              {"cluster", clusterName},   {"algorithm", c.algorithm}, {"points", points},
                              {"median_abs_error", c.medianAbsError},             {"max_abs_error", c.maxAbsError},
                              {"line_median_abs_error", c.lineMedianAbsError},    {"line_max_abs_error", c.lineMaxAbsError}};
  return j.dump(2) + "\n";
}

std::string csv(const Comparison& c) {
  std::string s = csvRow({"bytes", "measured_us", "predicted_us", "error", "line_us", "line_error"});
  for (const auto& p : c.points)
    s += csvRow({std::to_string(p.bytes), fixed(p.measuredUs, 3), fixed(p.predictedUs, 3), fixed(p.error(), 6),
                 fixed(p.lineUs, 3), fixed(p.lineError(), 6)});
  return s;
}

int run(const CompareCliOptions& o, CliStreams io) {
  if (o.format != "table" && o.format != "json" && o.format != "csv")
    throw UsageError("--format: '" + o.format + "' is not table, json or csv");
  MeasuredCurve curve = readMeasuredCurve(o.measured);
  Collective op = curve.op;
  if (!o.op.empty() && !parseCollective(o.op, op)) throw UsageError("--op: unknown collective '" + o.op + "'");
  if (o.op.empty() && !curve.opKnown)
    io.err << "collsim: note: " << curve.source << " does not name its operation; comparing as allreduce (--op)\n";
  ClusterSetup setup = loadClusterFile(o.cluster, o.sets);
  CompareOptions options;
  options.algorithm = o.algo;
  options.minBytes = optionBytes("--min-bytes", o.minBytes);
  options.channels = o.channels;
  Comparison c = compareWithMeasured(curve, op, setup, options);
  io.out << (o.format == "json" ? json(curve, c, setup.cluster.name)
             : o.format == "csv" ? csv(c)
                                 : table(curve, c, setup.cluster.name));
  return 0;
}

} // namespace

Command addCompareCommand(CLI::App& app) {
  auto o = std::make_shared<CompareCliOptions>();
  auto* cmd = app.add_subcommand("compare", "a measured nccl-tests or hccl_test log against collsim's prediction");
  cmd->add_option("measured", o->measured, "the benchmark's output, as printed")->required();
  cmd->add_option("--cluster", o->cluster, "cluster file of the measured hardware")->required();
  cmd->add_option("--algo", o->algo, "the algorithm to predict with")->capture_default_str();
  cmd->add_option("--op", o->op, "the collective, when the log does not name it");
  cmd->add_option("--channels", o->channels, "predict with the algorithm as this many channels")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--min-bytes", o->minBytes, "compare sizes from this one up")->capture_default_str();
  cmd->add_option("--set", o->sets, "override a cluster key: --set servers=4");
  cmd->add_option("--format", o->format, "table, json or csv")->capture_default_str();
  return {cmd, [o](CliStreams io) { return run(*o, io); }};
}

} // namespace collsim
