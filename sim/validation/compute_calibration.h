// Calibrating a device's compute to measured training runs: the figures of
// the compute model (sim/workload/operation_cost.h) that make collsim's step
// times follow what a software stack reached on that device.
//
// The figures, each with a prior centred on the device's own (sourced)
// value and a stated width, one standard deviation:
//   gemm_efficiency     the share of the peak GEMMs reach; width a factor
//                       of 1.25 (one device's GEMMs differ by a fifth and
//                       more across shapes and cuBLAS/CANN versions; the
//                       presets' figure is the best shape of a sweep)
//   attention.KERNEL    each fused attention kernel the runs use, forward
//                       and backward scaled together; width a factor of 1.5
//                       (FlashAttention's versions differ by 1.3-2 x on one
//                       device, FlashAttention-2 and -3's papers)
//   memory_efficiency   elementwise kernels' share of HBM bandwidth; width
//                       a factor of 1.3 (a copy reaches 90 %, unfused
//                       elementwise kernels and norms far less)
//   layer_overhead      the framework's fixed cost of each pass over a layer
//                       (DeviceModel::layerOverhead), from 0; width 50 us (a
//                       launch takes some 5-10 us of host time and a layer's
//                       pass launches tens of kernels: 0 while the host keeps
//                       ahead of the device, a few hundred us when it does not)
// A run measures its step (sim/workload/measurement.h: `measured:`; a
// variant without it but with a published step_ms, mfu, tokens_per_s or
// samples_per_s in `reference:` counts that, MFU as collsim counts it);
// a profiled run (measured.profile, sim/validation/profile.h) also where
// its step went: the time of its GEMMs, attention and memory-bound kernels
// and its idle time, which tell the figures apart that one step time
// cannot. The fit is maximum a posteriori: it minimizes the runs' squared
// log errors over kNoise (a measured step's run-to-run spread, 2 %), the
// profiled classes' errors as shares of the step over kProfileNoise (0.5 %:
// kernel times are exact, steps differ by about that), plus each
// figure's squared distance from its prior over its width, by
// Levenberg-Marquardt with a Jacobian of finite differences (every run
// simulated again per figure and iteration), within physical bounds (no
// share above 1, no negative overhead). So a figure moves only as far as
// the runs need it to; one run moves mostly the figure its step spends the
// most time in.
//
// `on` fits a chosen few of the measured runs and predicts the others
// with the fitted device (held out: the fit never saw them), which says
// what a calibration extrapolates to; `predict` names which (default:
// every other measured run on the device).
//
// A figure is determined by the runs when its posterior standard deviation
// (from the Jacobian and the priors, at the fit) is under half its prior
// width; otherwise the prior holds it near the device's value, and the
// output says so. The expected relative error of a prediction from the
// fitted device (written to the device file as calibration.error) is the
// posterior predictive standard deviation: the residuals' spread corrected
// for the figures the fit used up (never below kNoise), plus the figures'
// remaining uncertainty carried through each run's sensitivities.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace collsim {

struct CalibratedFigure {
  std::string name;       // "gemm_efficiency", "attention.flash-2", ...
  std::string unit;       // "" for shares and scales, "us" for layer_overhead
  double preset = 0;      // the device's own value (attention: 1, a scale of its figures)
  double fitted = 0;
  double sd = 0;          // posterior standard deviation, in the prior's space (log for factors)
  double priorWidth = 0;  // the same, before the runs
  bool determined = false;
};

struct CalibratedRun {
  std::string label;        // the variant, the sweep's values
  std::string measuredText; // the figure as given
  double measured = 0, before = 0, after = 0; // step seconds
};

struct ComputeCalibration {
  DeviceModel device; // the runs' device with the fitted figures
  std::vector<CalibratedFigure> figures;
  std::vector<CalibratedRun> runs;
  std::vector<CalibratedRun> heldOut; // measured runs the fit did not see, predicted before and after it
  double error = 0;   // the expected relative error of a prediction (see above)
  int simulations = 0;
  int iterations = 0;
  std::string yaml;   // the device file: the device's name and the fitted figures
  std::vector<double> fittedValues; // the fit's own coordinates of the figures (log of a share or scale, us)
};

struct ComputeCalibrationOptions {
  std::vector<std::string> fit; // figure names (attention: every kernel); empty: all the runs exercise
  std::string source;           // for the file's calibration.source and header
  std::vector<std::string> on;      // the runs to fit, by label (the variant; the sweep's key=value); empty: all
  std::vector<std::string> predict; // with `on`: the held-out runs to predict; empty: every other measured one
  int threads = 1;
  // Called after each simulation: done so far, and what is being done.
  std::function<void(int done, int total, const std::string& stage)> progress;
};

// The figure names --fit takes.
std::vector<std::string> computeFigureNames();

// `runs`: the points of a training study; those with a measured (or
// published) step are fitted, and they must share one device. Throws
// InputError when none measures its step, when they run on different
// devices, for a figure no run exercises, or for a label in `on` or
// `predict` that names no measured run (the error lists them).
ComputeCalibration calibrateCompute(const std::vector<Scenario>& runs, const ComputeCalibrationOptions& options);

// How calibrate names a run of a study: its variant, its sweep's key=value.
std::string runLabel(const Scenario& s);

// A scenario's measured step: its `measured:`, or a published throughput in
// its `reference:` (collsim's own MFU convention); none when it has neither.
std::optional<Measurement> measurementOf(const Scenario& s);

} // namespace collsim
