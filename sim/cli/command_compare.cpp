// collsim compare: a measured nccl-tests or hccl_test log against collsim's
// prediction of the same collective on a cluster (sim/validation/compare.h).
#include <chrono>

#include <CLI/CLI.hpp>

#include "sim/report/provenance.h"
#include "sim/core/closest_name.h"
#include "sim/cli/command.h"
#include "sim/study/progress.h"
#include "sim/cli/common_options.h"
#include "sim/core/parallel.h"
#include "sim/report/comparison_report.h"
#include "sim/study/output_file.h"
#include "sim/core/text_list.h"
#include "sim/validation/compare.h"

namespace collsim {
namespace {

struct CompareCliOptions {
  std::string measured, cluster, algo = "library", op, minBytes = "64KiB", out;
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets;
  EnvOptions env;
  int channels = 1;
  WorkLimitOptions limits;
};

int run(const CompareCliOptions& o, CliStreams io) {
  if (!o.out.empty()) OutputFile::check("--out", o.out); // before the comparison runs
  MeasuredCurve curve = readMeasuredCurve(o.measured);
  io.err << measuredCurveNotes(curve);
  Collective op = curve.op;
  if (!o.op.empty() && !parseCollective(o.op, op)) throw UsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  if (o.op.empty() && !curve.opKnown)
    io.err << "collsim: note: " << curve.source << " does not name its operation; comparing as allreduce (--op)\n";
  std::vector<std::string> sets = o.sets, algorithms{o.algo};
  applyRecordedVersion(curve, sets, io);
  applyNcclEnv(o.env, o.cluster, sets, algorithms, io, curve.env);
  applyHcclAlgorithm(o.env, o.cluster, sets, op, algorithms, io, curve.env);
  ClusterSetup setup = loadClusterFile(o.cluster, sets);
  CompareOptions options;
  options.algorithm = joinList(algorithms);
  noteLibraryRule(options.algorithm, op, setup, io, o.channels);
  SelectorRules rules = defaultSelectorRules();
  options.rules = &rules;
  options.minBytes = optionBytes("--min-bytes", o.minBytes);
  options.channels = o.channels;
  // The sizes run on every core at once.
  options.limits = workLimitsOf(o.limits, hardwareThreads());
  // The estimate walks every size's schedules under every protocol, which
  // on a small cluster costs about as long as running them: it is part of
  // the command's time (on one thread, before the runs).
  auto estimate = [&](const WorkLimits*) {
    const auto started = std::chrono::steady_clock::now();
    WorkEstimate e = estimateComparison(curve, op, setup, options);
    const double walked = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    e.wallSeconds = e.seconds() + walked;
    e.serialSeconds += walked;
    return e;
  };
  if (!checkWork(o.limits, hardwareThreads(), "compare with " + curve.source, io, estimate)) return 0;
  options.approved = true;
  std::unique_ptr<ProgressLine> line;
  if (io.progress)
    options.progress = [&](std::size_t done, std::size_t total) {
      if (!line) line = std::make_unique<ProgressLine>(&io.err, total, "sizes simulated");
      line->show(done);
    };
  Comparison c = compareWithMeasured(curve, op, setup, options);
  if (line) line->clear();
  std::string text = o.format == OutputFormat::Json ? comparisonJson(curve, c, setup.cluster.name).dump(2) + "\n"
                     : o.format == OutputFormat::Csv ? comparisonCsv(c)
                                         : comparisonTable(curve, c, setup.cluster.name);
  emit(withProvenance(text, o.format, io.commandLine, setup.resolvedYaml), o.out, io);
  return 0;
}

} // namespace

Command addCompareCommand(CLI::App& app) {
  auto o = std::make_shared<CompareCliOptions>();
  auto* cmd = app.add_subcommand("compare", "a measured nccl-tests or hccl_test log against collsim's prediction");
  cmd->add_option("measured", o->measured, "the benchmark's output, as printed")->required();
  cmd->add_option("--cluster", o->cluster, "cluster file of the measured hardware")->required();
  cmd->add_option("--algo", o->algo, "the algorithm to predict with: library (what the cluster's library picks per size), one, or several (the fastest per size)")->capture_default_str();
  cmd->add_option("--op", o->op, "the collective, when the log does not name it");
  cmd->add_option("--channels", o->channels, "predict with the algorithm as this many channels")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  cmd->add_option("--min-bytes", o->minBytes, "compare sizes from this one up")->capture_default_str();
  cmd->add_option("--set", o->sets, "override a cluster key: --set servers=4");
  addFormatOption(cmd, o->format, kMeasuredFormats);
  addOutOption(cmd, o->out);
  addEnvOptions(cmd, o->env);
  addWorkLimitOptions(cmd, o->limits);
  return {cmd, [o](CliStreams io) { return run(*o, io); }};
}

} // namespace collsim
