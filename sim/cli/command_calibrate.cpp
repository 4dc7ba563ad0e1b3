// collsim calibrate: fits a cluster file's physical figures to a measured
// nccl-tests or hccl_test log and writes the calibrated file
// (sim/validation/calibrate.h).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <unistd.h>
#include <utility>

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
  std::vector<std::string> measured; // logs, or one training study
  std::string cluster, out, algo = "library", op, minBytes = "64KiB";
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

// A log as the fit compares it: its collective, the NCCL release and
// settings its run records (in `sets`), and `servers`: "servers=N" when its
// rank count fills another number of the file's servers.
CalibrationLog logToFit(const std::string& file, const CalibrateCliOptions& o, const ClusterSetup& shape,
                        std::string& servers, CliStreams io) {
  CalibrationLog log{readMeasuredCurve(file), Collective::AllReduce, {}, o.algo};
  io.err << measuredCurveNotes(log.curve);
  log.op = log.curve.op;
  if (!o.op.empty() && !parseCollective(o.op, log.op)) throw UsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  const int ranks = ranksOf(log.curve, log.op), perServer = shape.cluster.devicesPerServer;
  servers.clear();
  if (ranks > 0 && ranks != shape.cluster.ranks()) {
    if (ranks % perServer != 0)
      throw InputError(file + ": measured on " + std::to_string(ranks) + " ranks, not whole servers of " +
                       shape.cluster.name + "'s " + std::to_string(perServer) + " devices");
    servers = "servers=" + std::to_string(ranks / perServer);
    io.err << "collsim: note: " << file << ": " << ranks << " ranks: compared on " << ranks / perServer << " servers\n";
  }
  std::vector<std::string> algorithms{o.algo};
  applyRecordedVersion(log.curve, log.sets, io);
  applyNcclEnv(o.env, o.cluster, log.sets, algorithms, io, log.curve.env);
  applyHcclAlgorithm(o.env, o.cluster, log.sets, log.op, algorithms, io, log.curve.env);
  log.algorithm = joinList(algorithms);
  return log;
}

// `text` as comment lines of at most kColumns (a word longer than a line
// keeps its own): the first after `prefix`, the others indented under it.
std::string commentLines(const std::string& prefix, const std::string& text) {
  constexpr std::size_t kColumns = 100;
  std::string out, line, lead = prefix;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && lead.size() + line.size() + 1 + word.size() > kColumns)
      out += lead + line + "\n", line.clear(), lead = prefix + "  ";
    line += (line.empty() ? "" : " ") + word;
  }
  return out + lead + line + "\n";
}

// A figure's physical range as a person reads it.
std::string rangeText(const std::string& name) {
  std::optional<CalibrationRange> r = calibrationRange(name);
  return r ? fittedValueText(name, r->lo) + "-" + fittedValueText(name, r->hi) : "-";
}

int runLogs(const CalibrateCliOptions& o, CliStreams io);

bool isClusterFigure(const std::string& name) {
  const std::vector<std::string> names = calibrationParameterNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Logs and a training study in one command: the cluster calibrated on the
// logs first (--write-cluster, or a file of its own for the run), then the
// device on the study's runs with that cluster (--set applies to the
// study; --fit's names go to whichever fits them). The reports one after
// the other; JSON: {"cluster": ..., "device": ...}.
int runLogsThenStudy(const CalibrateCliOptions& o, const std::string& study, CliStreams io) {
  if (o.cluster.empty()) throw UsageError("--cluster: the cluster file of the measured hardware is required for a log");
  CalibrateCliOptions logs = o;
  std::erase(logs.measured, study);
  logs.sets.clear();
  logs.on.clear(), logs.predict.clear(), logs.writeDevice.clear();
  std::erase_if(logs.fit, [](const std::string& f) { return !isClusterFigure(f); });
  std::vector<std::string> computeFit = o.fit;
  std::erase_if(computeFit, isClusterFigure);
  std::optional<std::filesystem::path> own;
  if (logs.writeCluster.empty()) {
    own = std::filesystem::temp_directory_path() / ("collsim-calibrated-" + std::to_string(::getpid()) + ".yaml");
    logs.writeCluster = own->string();
  }
  struct Remove {
    std::optional<std::filesystem::path>& path;
    ~Remove() {
      std::error_code ignored;
      if (path) std::filesystem::remove(*path, ignored);
    }
  } remove{own};
  std::ostringstream clusterReport, deviceReport;
  int status = runLogs(logs, {clusterReport, io.err, io.progress, io.commandLine});
  if (status != 0) return status;
  std::vector<std::string> sets = o.sets;
  // --estimate writes no cluster: the device's fit is estimated on the file
  // as given, the same shape.
  const std::string& fitted = o.limits.estimateOnly ? o.cluster : logs.writeCluster;
  sets.insert(sets.begin(), "cluster=" + std::filesystem::absolute(fitted).string());
  if (!o.limits.estimateOnly)
    io.err << "collsim: calibrating the device on " << study << " with the cluster calibrated on the logs\n";
  status = runComputeCalibration({study, o.writeDevice, o.format, sets, computeFit, o.limits, o.on, o.predict},
                                 {deviceReport, io.err, io.progress, io.commandLine});
  if (status != 0) return status;
  std::string cluster = clusterReport.str();
  if (own) { // the file is this run's: say so, not where it was
    const std::string written = "; written to " + own->string();
    if (std::size_t at = cluster.find(written); at != std::string::npos)
      cluster.replace(at, written.size(), "; held for the device's fit (--write-cluster FILE keeps it)");
  }
  if (o.format == OutputFormat::Json && !o.limits.estimateOnly) {
    nlohmann::ordered_json j;
    j["cluster"] = nlohmann::ordered_json::parse(cluster);
    if (own) j["cluster"].erase("cluster_file");
    j["device"] = nlohmann::ordered_json::parse(deviceReport.str());
    io.out << j.dump(2) << "\n";
  } else {
    io.out << cluster << "\n" << deviceReport.str();
  }
  return 0;
}

int run(const CalibrateCliOptions& o, CliStreams io) {
  std::vector<std::string> studies;
  for (const auto& m : o.measured)
    if (namesTrainingRuns(m)) studies.push_back(m);
  if (studies.size() > 1) throw UsageError("calibrate: one training study at a time (" + studies[1] + ")");
  if (!studies.empty() && studies.size() < o.measured.size()) return runLogsThenStudy(o, studies.front(), io);
  if (!studies.empty()) {
    if (!o.cluster.empty())
      throw UsageError("--cluster: training runs name their cluster; set another with --set cluster=FILE, or give "
                       "the cluster's benchmark logs beside the study to calibrate both");
    if (!o.writeCluster.empty())
      throw UsageError("--write-cluster: training runs calibrate a device; write it with --write-device FILE");
    return runComputeCalibration({o.measured.front(), o.writeDevice, o.format, o.sets, o.fit, o.limits, o.on, o.predict}, io);
  }
  return runLogs(o, io);
}

int runLogs(const CalibrateCliOptions& o, CliStreams io) {
  if (!o.on.empty() || !o.predict.empty()) throw UsageError("--on and --predict choose among training runs (RUNS.yaml)");
  if (!o.writeDevice.empty())
    throw UsageError("--write-device: a benchmark log calibrates a cluster; write it with --write-cluster FILE");
  if (o.cluster.empty()) throw UsageError("--cluster: the cluster file of the measured hardware is required for a log");
  std::optional<OutputFile> out;
  if (!o.writeCluster.empty()) out = OutputFile::check("--write-cluster", o.writeCluster);
  const ClusterSetup shape = loadClusterFile(o.cluster, o.sets);
  // NCCL settings are part of what is fitted: the calibrated file keeps the
  // first log's, then the user's --set (which win). A later log's apply to
  // its comparisons only, the user's again after them; each log runs on
  // the servers its ranks fill.
  std::vector<CalibrationLog> logs;
  std::vector<std::string> sets;
  for (const auto& file : o.measured) {
    std::string servers;
    logs.push_back(logToFit(file, o, shape, servers, io));
    std::vector<std::string>& own = logs.back().sets;
    if (logs.size() == 1) sets = std::exchange(own, {}), sets.insert(sets.end(), o.sets.begin(), o.sets.end());
    else own.insert(own.end(), o.sets.begin(), o.sets.end());
    if (!servers.empty()) own.insert(own.begin(), servers);
  }
  CalibrateOptions options;
  options.fit = o.fit;
  options.compare.algorithm = logs.front().algorithm;
  for (const CalibrationLog& log : logs) {
    std::vector<std::string> all = sets;
    all.insert(all.end(), log.sets.begin(), log.sets.end());
    noteLibraryRule(log.algorithm, log.op, loadClusterFile(o.cluster, all), io, o.channels);
  }
  SelectorRules rules = defaultSelectorRules();
  options.compare.rules = &rules;
  options.compare.minBytes = optionBytes("--min-bytes", o.minBytes);
  options.compare.channels = o.channels;
  // Each comparison runs its sizes on every core; the last stage runs two
  // comparisons at once.
  options.compare.limits = workLimitsOf(o.limits, hardwareThreads());
  std::string sources;
  for (const CalibrationLog& log : logs) sources += (sources.empty() ? "" : ", ") + log.curve.source;
  if (!checkWork(o.limits, 2 * hardwareThreads(), "calibrating against " + sources, io,
                 [&](const WorkLimits*) { return estimateCalibration(logs, o.cluster, sets, options); }))
    return 0;
  options.compare.approved = true;
  io.err << "collsim: calibrating " << o.cluster << " against " << sources << "\n";
  std::unique_ptr<ProgressLine> line;
  std::string stage;
  if (io.progress)
    options.progress = [&](double share, const std::string& now) {
      if (now != stage || !line) stage = now, line = std::make_unique<ProgressLine>(&io.err, 1, "of the fit (" + now + ")");
      line->showShare(share);
    };
  CalibrationResult r = calibrate(logs, o.cluster, sets, options);
  if (line) line->clear();
  if (out) writeOutputFiles({{*out, r.yaml}});
  std::string name = o.cluster + " (calibrated)";
  auto determined = [&](const std::string& k) {
    if (k.ends_with(".max_bytes")) return std::string("-");
    for (const OutsideRange& w : r.outsideRange)
      if (w.name == k) return "wants " + fittedValueText(k, w.wanted) + ": kept at its range's edge";
    bool poorly = std::find(r.poorlyDetermined.begin(), r.poorlyDetermined.end(), k) != r.poorlyDetermined.end();
    return std::string(poorly ? "poorly: at its prior" : "by the curves");
  };
  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json j = comparisonJson(logs.front().curve, r.after.front(), name);
    nlohmann::ordered_json fitted = nlohmann::ordered_json::object(), units = nlohmann::ordered_json::object(),
                           ranges = nlohmann::ordered_json::object();
    for (const auto& [k, v] : r.fitted) {
      fitted[k] = v, units[k] = fittedUnit(k);
      if (auto range = calibrationRange(k)) ranges[k] = {range->lo, range->hi};
    }
    j["fitted"] = fitted;
    j["fitted_units"] = units;
    j["fitted_ranges"] = ranges;
    j["poorly_determined"] = r.poorlyDetermined;
    nlohmann::ordered_json outside = nlohmann::ordered_json::array();
    for (const OutsideRange& w : r.outsideRange)
      outside.push_back({{"parameter", w.name}, {"kept", w.kept}, {"wanted", w.wanted}, {"range", {w.lo, w.hi}},
                         {"source", w.source}, {"pulled_by", w.pulledBy}});
    j["outside_range"] = outside;
    j["before"] = {{"median_abs_error", r.before.front().medianAbsError}, {"max_abs_error", r.before.front().maxAbsError}};
    nlohmann::ordered_json others = nlohmann::ordered_json::array();
    for (std::size_t k = 1; k < logs.size(); ++k) {
      nlohmann::ordered_json one = comparisonJson(logs[k].curve, r.after[k], name);
      one["before"] = {{"median_abs_error", r.before[k].medianAbsError}, {"max_abs_error", r.before[k].maxAbsError}};
      others.push_back(one);
    }
    if (!others.empty()) j["other_logs"] = others;
    j["evaluations"] = r.evaluations;
    if (out) j["cluster_file"] = o.writeCluster;
    io.out << withProvenance(j.dump(2) + "\n", OutputFormat::Json, io.commandLine, "");
    return 0;
  }
  TextTable fitted({"parameter", "value", "unit", "range", "determined"});
  for (const auto& [k, v] : r.fitted) fitted.add({k, fittedValueText(k, v), fittedUnit(k), rangeText(k), determined(k)});
  // A figure the curves want outside its range: what the model misses, not physics.
  std::string wants;
  for (const OutsideRange& w : r.outsideRange) {
    std::string pulled;
    for (const auto& p : w.pulledBy) pulled += (pulled.empty() ? "" : "; ") + p;
    wants += commentLines("# ", w.name + ": the curves want " + fittedValueText(w.name, w.wanted) + ", past its range " +
                                    rangeText(w.name) + "; kept at " + fittedValueText(w.name, w.kept)) +
             commentLines("#   ", "the range: " + w.source) + commentLines("#   ", "pulled by: " + pulled);
  }
  io.out << withProvenance("", OutputFormat::Table, io.commandLine, "") << "# fitted in " << r.evaluations << " comparisons" << (out ? "; written to " + o.writeCluster : "") << "\n"
         << fitted.text() << wants;
  for (std::size_t k = 0; k < logs.size(); ++k)
    io.out << (k > 0 ? "\n" : "") << summary("before", r.before[k]) << comparisonTable(logs[k].curve, r.after[k], name);
  return 0;
}

} // namespace

Command addCalibrateCommand(CLI::App& app) {
  auto o = std::make_shared<CalibrateCliOptions>();
  auto* cmd = app.add_subcommand("calibrate", "fit a cluster file's figures to a measured nccl-tests or hccl_test log, "
                                              "or a device's compute to measured training runs (RUNS.yaml)");
  cmd->add_option("measured", o->measured, "the benchmark's output, as printed (several: fitted together, each on "
                                           "as many servers as its ranks fill); or a training study whose runs "
                                           "carry measured: figures (.yaml)")->required();
  cmd->add_option("--cluster", o->cluster, "cluster file of the measured hardware (with a library:), for a log");
  cmd->add_option("--fit", o->fit, "parameters to fit (default: all the cluster and logs can show but step_cost, each inside its physical range; or all the runs exercise): " + [] {
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
            const bool training = namesTrainingRuns(given.measured.front());
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
