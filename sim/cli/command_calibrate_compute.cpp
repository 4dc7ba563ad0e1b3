// collsim calibrate RUNS.yaml: fits a device's compute figures to measured
// training runs and writes the device file (sim/validation/compute_calibration.h).
#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/core/parallel.h"
#include "sim/core/statistics.h"
#include "sim/report/provenance.h"
#include "sim/report/text_table.h"
#include "sim/study/execute_training.h"
#include "sim/study/output_file.h"
#include "sim/study/progress.h"
#include "sim/validation/compute_calibration.h"

namespace collsim {
namespace {

// A figure as a person reads it: a share, a kernel's forward/backward
// shares, or microseconds.
std::string figureText(const CalibratedFigure& f, const DeviceModel& preset, const DeviceModel& fitted, bool isFitted) {
  const DeviceModel& d = isFitted ? fitted : preset;
  if (f.unit == "us") return fixed(isFitted ? f.fitted : f.preset, 1) + " us";
  if (f.name.rfind("attention", 0) == 0) {
    std::string kernel = f.name == "attention" ? "" : f.name.substr(std::string("attention.").size());
    double forward = d.attentionForward, backward = d.attentionBackward;
    for (const AttentionKernel& k : d.attentionKernels)
      if (k.name == kernel) forward = k.forward, backward = k.backward;
    return fixed(forward, 3) + "/" + fixed(backward, 3);
  }
  return fixed(isFitted ? f.fitted : f.preset, 3);
}

// One standard deviation as a person reads it: a factor for a share or a
// scale (x1.05), microseconds for the overhead.
std::string widthText(const CalibratedFigure& f, double width) {
  return f.unit == "us" ? fixed(width, 1) + " us" : "x" + fixed(std::exp(width), 3);
}

double errorOf(double predicted, double measured) { return predicted / measured - 1; }

} // namespace

int runComputeCalibration(const ComputeCalibrateRequest& request, CliStreams io) {
  std::optional<OutputFile> out;
  if (!request.deviceFile.empty()) out = OutputFile::check("--write-device", request.deviceFile);
  std::vector<Scenario> study = loadStudyFile(request.runs, request.sets);
  // Bounded like run: each run fitted once per simulation a fit takes
  // (about four iterations of one pass per figure and a step), each
  // held-out run twice (before and after).
  std::vector<TrainingJob> jobs = trainingJobs(study);
  estimateTrainingJobs(jobs);
  for (const TrainingJob& j : jobs)
    if (!j.error.empty()) throw InputError(j.error);
  WorkEstimate fit;
  const double passes = 4.0 * double(computeFigureNames().size() + 2);
  for (const TrainingJob& j : jobs) {
    const Scenario& s = *j.scenario;
    const bool fitted = request.on.empty() || std::find(request.on.begin(), request.on.end(), runLabel(s)) != request.on.end();
    WorkEstimate e = estimateTrainingStep(s.cluster, *s.training, stepOptionsOf(s, j.algorithm, 1, nullptr));
    e.events *= fitted ? passes : 2, e.wallSeconds *= fitted ? passes : 2;
    fit.addSequential(e);
  }
  if (!checkWork(request.limits, hardwareThreads(), "calibrating against " + request.runs, io,
                 [&](const WorkLimits*) { return fit; }))
    return 0;

  ComputeCalibrationOptions options;
  options.fit = request.fit;
  options.on = request.on, options.predict = request.predict;
  options.source = request.runs;
  options.threads = hardwareThreads();
  std::unique_ptr<ProgressLine> line;
  std::string stage;
  if (io.progress)
    options.progress = [&](int done, int total, const std::string& now) {
      if (now != stage || !line) stage = now, line = std::make_unique<ProgressLine>(&io.err, total, "simulations (" + now + ")");
      line->show(std::size_t(done));
    };
  io.err << "collsim: calibrating the compute of " << request.runs << "'s device to its measured runs\n";
  ComputeCalibration c = calibrateCompute(study, options);
  if (line) line->clear();
  if (out) writeOutputFiles({{*out, c.yaml}});

  // |error| of runs before and after the fit: its median and largest.
  auto errors = [](const std::vector<CalibratedRun>& runs, bool fitted) {
    std::vector<double> e;
    for (const CalibratedRun& r : runs) e.push_back(std::abs(errorOf(fitted ? r.after : r.before, r.measured)));
    return e;
  };
  const std::vector<double> before = errors(c.runs, false), after = errors(c.runs, true);
  // The fitted runs' device as given (the study's first point may run on another).
  auto fittedRun = std::find_if(study.begin(), study.end(),
                                [&](const Scenario& s) { return runLabel(s) == c.runs.front().label; });
  const DeviceModel& preset = (fittedRun != study.end() ? *fittedRun : study.front()).cluster.device;
  if (request.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["device"] = c.device.name;
    nlohmann::ordered_json fitted = nlohmann::ordered_json::object(), figures = nlohmann::ordered_json::array();
    for (const CalibratedFigure& f : c.figures) {
      fitted[f.name] = f.fitted;
      figures.push_back({{"name", f.name}, {"unit", f.unit}, {"preset", f.preset}, {"fitted", f.fitted},
                         {"sd", f.sd}, {"prior_width", f.priorWidth}, {"determined", f.determined},
                         {"scale", f.unit == "us" ? "linear" : "log"}});
    }
    j["fitted"] = fitted;
    j["figures"] = figures;
    auto runsJson = [](const std::vector<CalibratedRun>& list) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const CalibratedRun& r : list)
        out.push_back({{"run", r.label}, {"measured", r.measuredText}, {"measured_s", r.measured},
                       {"before_s", r.before}, {"after_s", r.after}, {"error_before", errorOf(r.before, r.measured)},
                       {"error_after", errorOf(r.after, r.measured)}});
      return out;
    };
    j["runs"] = runsJson(c.runs);
    j["median_abs_error_before"] = median(before), j["median_abs_error"] = median(after);
    j["max_abs_error"] = *std::max_element(after.begin(), after.end());
    if (!c.heldOut.empty()) {
      const std::vector<double> b = errors(c.heldOut, false), a = errors(c.heldOut, true);
      j["held_out"] = runsJson(c.heldOut);
      j["held_out_median_abs_error_before"] = median(b), j["held_out_median_abs_error"] = median(a);
      j["held_out_max_abs_error"] = *std::max_element(a.begin(), a.end());
    }
    j["expected_error"] = c.error;
    j["simulations"] = c.simulations, j["iterations"] = c.iterations;
    if (out) j["device_file"] = request.deviceFile;
    io.out << withProvenance(j.dump(2) + "\n", OutputFormat::Json, io.commandLine, "");
    return 0;
  }
  TextTable figures({"figure", "preset", "fitted", "sd", "prior_sd", "determined"});
  for (const CalibratedFigure& f : c.figures)
    figures.add({f.name, figureText(f, preset, c.device, false), figureText(f, preset, c.device, true),
                 widthText(f, f.sd), widthText(f, f.priorWidth),
                 f.determined ? "by the runs" : "poorly: the prior holds it"});
  auto runTable = [](const std::vector<CalibratedRun>& list) {
    TextTable t({"run", "measured", "measured_ms", "before_ms", "error", "after_ms", "error"});
    for (const CalibratedRun& r : list)
      t.add({r.label, r.measuredText, fixed(r.measured * 1e3, 3), fixed(r.before * 1e3, 3),
             percent(errorOf(r.before, r.measured)), fixed(r.after * 1e3, 3), percent(errorOf(r.after, r.measured))});
    return t;
  };
  TextTable runs = runTable(c.runs);
  io.out << withProvenance("", OutputFormat::Table, io.commandLine, "") << "# collsim calibrate: " << c.device.name
         << "'s compute fitted to " << c.runs.size() << " measured run(s) of " << request.runs << " ("
         << c.simulations << " simulations, " << c.iterations << " iterations)"
         << (out ? "; device file written to " + request.deviceFile : "") << "\n"
         << "# figures: the preset's and the fitted value; sd: one standard deviation of the fit (x: a factor),\n"
            "# prior_sd: before the runs; a figure the runs do not pin (sd over half the prior's) stays near the preset\n"
         << figures.text() << "# runs: the measured step against the prediction, before and after the fit\n"
         << runs.text() << "# median |error| " << percent(median(before)) << " -> " << percent(median(after))
         << ", max " << percent(*std::max_element(after.begin(), after.end()))
         << "; a prediction from the fitted device is expected within " << percent(c.error)
         << " (one sd: calibration.error)\n";
  if (!c.heldOut.empty()) {
    const std::vector<double> b = errors(c.heldOut, false), a = errors(c.heldOut, true);
    io.out << "# held out: the other measured runs, which the fit did not see, predicted before and after it\n"
           << runTable(c.heldOut).text() << "# held out: median |error| " << percent(median(b)) << " -> "
           << percent(median(a)) << ", max " << percent(*std::max_element(a.begin(), a.end())) << " over "
           << c.heldOut.size() << " run(s)\n";
  }
  return 0;
}

} // namespace collsim
