// collsim calibrate: fits a cluster file's physical figures to a measured
// nccl-tests or hccl_test log and writes the calibrated file
// (sim/validation/calibrate.h).
#include <CLI/CLI.hpp>

#include <algorithm>

#include "sim/report/provenance.h"
#include "sim/core/closest_name.h"
#include "sim/cli/command.h"
#include "sim/study/progress.h"
#include "sim/cli/common_options.h"
#include "sim/core/parallel.h"
#include "sim/report/comparison_report.h"
#include "sim/study/output_file.h"
#include "sim/report/text_table.h"
#include "sim/core/text_list.h"
#include "sim/validation/calibrate.h"
#include "sim/validation/compute_calibration.h"

namespace collsim {
namespace {

struct CalibrateCliOptions {
  std::string measured, cluster, out, algo = "library", op, minBytes = "64KiB";
  OutputFormat format = OutputFormat::Table;
  std::string writeCluster, writeDevice; // the calibrated YAML; --out is the report
  std::vector<std::string> sets, fit, on, predict;
  EnvOptions env;
  int channels = 1;
  WorkLimitOptions limits;
};

std::string summary(const char* label, const Comparison& c) {
  return std::string("# ") + label + ": median |error| " + percent(c.medianAbsError) + ", max " +
         percent(c.maxAbsError) + "\n";
}

// A fitted figure as a person reads it, with its unit: times in us, a
// switch point as a size (none: the protocol runs every size), scales as
// factors of the file's figures, efficiencies as shares of a link's line rate.
bool fittedTime(const std::string& name) { return name == "launch" || name == "network_latency" || name == "step_cost"; }
std::string fittedValueText(const std::string& name, double v) {
  if (fittedTime(name)) return fixed(v, 3);
  if (name.ends_with(".max_bytes")) return v == 0 ? "none" : formatBytes(Bytes(v));
  return fixed(v, 4);
}
std::string fittedUnit(const std::string& name) {
  if (fittedTime(name)) return "us";
  if (name.ends_with(".max_bytes")) return "bytes";
  if (name.ends_with("_scale")) return "x the file's";
  if (name.ends_with("efficiency")) return "of line rate";
  return "";
}

// Training runs in a YAML study, rather than a benchmark's log.
bool namesTrainingRuns(const std::string& file) { return file.ends_with(".yaml") || file.ends_with(".yml"); }

int run(const CalibrateCliOptions& o, CliStreams io) {
  if (namesTrainingRuns(o.measured)) {
    if (!o.cluster.empty())
      throw UsageError("--cluster: training runs name their cluster; set another with --set cluster=FILE");
    if (!o.writeCluster.empty())
      throw UsageError("--write-cluster: training runs calibrate a device; write it with --write-device FILE");
    return runComputeCalibration({o.measured, o.writeDevice, o.format, o.sets, o.fit, o.limits, o.on, o.predict}, io);
  }
  if (!o.on.empty() || !o.predict.empty()) throw UsageError("--on and --predict choose among training runs (RUNS.yaml)");
  if (!o.writeDevice.empty())
    throw UsageError("--write-device: a benchmark log calibrates a cluster; write it with --write-cluster FILE");
  if (o.cluster.empty()) throw UsageError("--cluster: the cluster file of the measured hardware is required for a log");
  std::optional<OutputFile> out;
  if (!o.writeCluster.empty()) out = OutputFile::check("--write-cluster", o.writeCluster);
  MeasuredCurve curve = readMeasuredCurve(o.measured);
  io.err << measuredCurveNotes(curve);
  Collective op = curve.op;
  if (!o.op.empty() && !parseCollective(o.op, op)) throw UsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  // NCCL settings are part of what is fitted: the calibrated file keeps them.
  std::vector<std::string> sets = o.sets, algorithms{o.algo};
  applyRecordedVersion(curve, sets, io);
  applyNcclEnv(o.env, o.cluster, sets, algorithms, io, curve.env);
  applyHcclAlgorithm(o.env, o.cluster, sets, op, algorithms, io, curve.env);
  CalibrateOptions options;
  options.fit = o.fit;
  options.compare.algorithm = joinList(algorithms);
  noteLibraryRule(options.compare.algorithm, op, loadClusterFile(o.cluster, sets), io, o.channels);
  SelectorRules rules = defaultSelectorRules();
  options.compare.rules = &rules;
  options.compare.minBytes = optionBytes("--min-bytes", o.minBytes);
  options.compare.channels = o.channels;
  // Each comparison runs its sizes on every core; the last stage runs two
  // comparisons at once.
  options.compare.limits = workLimitsOf(o.limits, hardwareThreads());
  if (!checkWork(o.limits, 2 * hardwareThreads(), "calibrating against " + curve.source, io,
                 [&](const WorkLimits*) { return estimateCalibration(curve, op, o.cluster, sets, options); }))
    return 0;
  options.compare.approved = true;
  io.err << "collsim: calibrating " << o.cluster << " against " << curve.source << "\n";
  std::unique_ptr<ProgressLine> line;
  std::string stage;
  if (io.progress)
    options.progress = [&](double share, const std::string& now) {
      if (now != stage || !line) stage = now, line = std::make_unique<ProgressLine>(&io.err, 1, "of the fit (" + now + ")");
      line->showShare(share);
    };
  CalibrationResult r = calibrate(curve, op, o.cluster, sets, options);
  if (line) line->clear();
  if (out) writeOutputFiles({{*out, r.yaml}});
  std::string name = o.cluster + " (calibrated)";
  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json j = comparisonJson(curve, r.after, name);
    nlohmann::ordered_json fitted = nlohmann::ordered_json::object(), units = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r.fitted) fitted[k] = v, units[k] = fittedUnit(k);
    j["fitted"] = fitted;
    j["fitted_units"] = units;
    j["poorly_determined"] = r.poorlyDetermined;
    j["before"] = {{"median_abs_error", r.before.medianAbsError}, {"max_abs_error", r.before.maxAbsError}};
    j["evaluations"] = r.evaluations;
    if (out) j["cluster_file"] = o.writeCluster;
    io.out << withProvenance(j.dump(2) + "\n", OutputFormat::Json, io.commandLine, "");
    return 0;
  }
  TextTable fitted({"parameter", "value", "unit", "determined"});
  for (const auto& [k, v] : r.fitted) {
    bool poorly = std::find(r.poorlyDetermined.begin(), r.poorlyDetermined.end(), k) != r.poorlyDetermined.end();
    bool priored = !k.ends_with(".max_bytes");
    fitted.add({k, fittedValueText(k, v), fittedUnit(k), !priored ? "-" : poorly ? "poorly: the prior holds it" : "by the curve"});
  }
  io.out << withProvenance("", OutputFormat::Table, io.commandLine, "") << "# fitted in " << r.evaluations << " comparisons" << (out ? "; written to " + o.writeCluster : "") << "\n"
         << fitted.text() << summary("before", r.before) << comparisonTable(curve, r.after, name);
  return 0;
}

} // namespace

Command addCalibrateCommand(CLI::App& app) {
  auto o = std::make_shared<CalibrateCliOptions>();
  auto* cmd = app.add_subcommand("calibrate", "fit a cluster file's figures to a measured nccl-tests or hccl_test log, "
                                              "or a device's compute to measured training runs (RUNS.yaml)");
  cmd->add_option("measured", o->measured, "the benchmark's output, as printed; or a training study whose runs "
                                           "carry measured: figures (.yaml)")->required();
  cmd->add_option("--cluster", o->cluster, "cluster file of the measured hardware (with a library:), for a log");
  cmd->add_option("--fit", o->fit, "parameters to fit (default: all the cluster has but step_cost, or all the runs exercise): " + [] {
    std::string s;
    for (const auto& n : calibrationParameterNames()) s += (s.empty() ? "" : ", ") + n;
    s += "; for training runs: ";
    for (const auto& n : computeFigureNames()) s += n + (n == computeFigureNames().back() ? "" : ", ");
    return s;
  }())->delimiter(',');
  cmd->add_option("--write-cluster", o->writeCluster, "write the calibrated cluster file here (a log)");
  cmd->add_option("--write-device", o->writeDevice, "write the calibrated device file here (training runs)");
  addOutOption(cmd, o->out);
  addWorkLimitOptions(cmd, o->limits);
  cmd->add_option("--on", o->on, "training runs: fit only these (variants, by name) and predict the others held out")
      ->delimiter(',');
  cmd->add_option("--predict", o->predict, "with --on: the held-out runs to predict (default: every other measured run "
                                           "on the device)")
      ->delimiter(',');
  cmd->add_option("--algo", o->algo, "the algorithm to predict with: library (what the cluster's library picks per size), one, or several (the fastest per size)")->capture_default_str();
  cmd->add_option("--op", o->op, "the collective, when the log does not name it");
  cmd->add_option("--channels", o->channels, "a fixed channel count (default: the library's choice per size)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--min-bytes", o->minBytes, "fit sizes from this one up")->capture_default_str();
  cmd->add_option("--set", o->sets, "override a cluster key before fitting: --set servers=4");
  addFormatOption(cmd, o->format, kReportFormats);
  addEnvOptions(cmd, o->env);
  return {cmd, [o](CliStreams io) {
            CalibrateCliOptions given = *o;
            const bool training = namesTrainingRuns(given.measured);
            std::string& written = training ? given.writeDevice : given.writeCluster;
            const std::string writeOption = training ? "--write-device" : "--write-cluster";
            keepOldCalibrateOut(given.out, written, writeOption, io.err);
            if (!given.out.empty() && !written.empty() &&
                OutputFile::check("--out", given.out).sameFileAs(OutputFile::check(writeOption, written)))
              throw UsageError("--out and " + writeOption + " name the same file: the report and the YAML need two");
            return runWritingTo(given.out, io, [&](CliStreams to) { return run(given, to); });
          }};
}

} // namespace collsim
