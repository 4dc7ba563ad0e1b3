#include "sim/validation/compute_calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

#include "sim/core/parallel.h"
#include "sim/core/statistics.h"
#include "sim/core/text_list.h"
#include "sim/scenario/step_options.h"
#include "sim/validation/profile.h"
#include "sim/workload/step_simulation.h"

namespace collsim {
namespace {

// A measured step's run-to-run spread: what one run's log error is worth
// against a figure's prior width; and a profiled class's, as a share of
// the step (kernel times are exact, steps differ by about that).
constexpr double kNoise = 0.02;
constexpr double kProfileNoise = 0.005;
constexpr int kMaxIterations = 8;
// A step is done when no figure moves by more than this share of its width.
constexpr double kConverged = 0.01;

// One fitted figure: its value in the space its prior lives in (the log of
// a share or a scale; microseconds of overhead), the prior there, bounds.
struct Figure {
  std::string name;
  bool logScale = true;
  std::string kernel; // attention.KERNEL: the kernel's name ("" for a device's unnamed own kernel)
  double prior = 0, width = 0, lo = 0, hi = 0;
  double step = 0; // the finite difference
};

// A run to fit: the study point, what it measured (with a profile, its
// classes per step).
struct Run {
  const Scenario* scenario;
  Measurement measured;
  std::string label;
  double measuredSeconds = 0; // of this run's batch (known after its first simulation)
  std::optional<ProfileClasses> profile;
};

// The fused kernel a run's model runs on its device; nullopt when none.
std::optional<std::string> attentionKernelOf(const Scenario& s) {
  const ModelSpec& m = s.training->model;
  if (!timedByOperations(m) || !m.transformer->flashAttention) return std::nullopt;
  return m.transformer->attentionKernel.empty() ? s.cluster.device.attentionKernel : m.transformer->attentionKernel;
}

// The figures of the kernel a device runs under that name (its own when "").
std::pair<double, double> kernelFigures(const DeviceModel& d, const std::string& kernel) {
  if (kernel.empty() || kernel == d.attentionKernel) return {d.attentionForward, d.attentionBackward};
  for (const AttentionKernel& k : d.attentionKernels)
    if (k.name == kernel) return {k.forward, k.backward};
  throw InputError((d.name.empty() ? "the device" : d.name) + " has no figures for attention: " + kernel);
}

std::string attentionFigureName(const std::string& kernel) { return kernel.empty() ? "attention" : "attention." + kernel; }

// `device` with the figures at `values`.
DeviceModel withFigures(DeviceModel d, const std::vector<Figure>& figures, const std::vector<double>& values) {
  for (std::size_t j = 0; j < figures.size(); ++j) {
    const Figure& f = figures[j];
    const double v = values[j];
    if (f.name == "gemm_efficiency") d.gemmEfficiency = std::exp(v);
    else if (f.name == "memory_efficiency") d.memoryEfficiency = std::exp(v);
    else if (f.name == "layer_overhead") d.layerOverhead = Time(std::llround(std::max(0.0, v) * 1e6));
    else { // attention.KERNEL: both of its figures scaled, at most the peak
      auto [forward, backward] = kernelFigures(d, f.kernel);
      const double scale = std::exp(v);
      forward = std::min(1.0, forward * scale), backward = std::min(1.0, backward * scale);
      for (AttentionKernel& k : d.attentionKernels)
        if (k.name == f.kernel) k.forward = forward, k.backward = backward;
      if (f.kernel.empty() || f.kernel == d.attentionKernel) d.attentionForward = forward, d.attentionBackward = backward;
    }
  }
  return d;
}

// The figures the runs exercise, with their priors about `device`'s values.
std::vector<Figure> figuresOf(const std::vector<Run>& runs, const DeviceModel& device,
                              const std::vector<std::string>& only) {
  std::vector<Figure> all;
  const bool operations = std::any_of(runs.begin(), runs.end(), [](const Run& r) {
    return timedByOperations(r.scenario->training->model);
  });
  auto logFigure = [](const std::string& name, double value, double factor, double hi) {
    Figure f;
    f.name = name, f.prior = std::log(value), f.width = std::log(factor);
    f.lo = std::log(0.02), f.hi = hi, f.step = 0.02;
    return f;
  };
  if (operations) all.push_back(logFigure("gemm_efficiency", device.gemmEfficiency, 1.25, 0));
  std::vector<std::string> kernels;
  for (const Run& r : runs)
    if (auto k = attentionKernelOf(*r.scenario); k && std::find(kernels.begin(), kernels.end(), *k) == kernels.end())
      kernels.push_back(*k);
  for (const std::string& k : kernels) {
    auto [forward, backward] = kernelFigures(device, k);
    Figure f = logFigure(attentionFigureName(k), 1, 1.5, -std::log(std::max(forward, backward)));
    f.kernel = k;
    all.push_back(f);
  }
  all.push_back(logFigure("memory_efficiency", device.memoryEfficiency, 1.3, 0));
  Figure overhead;
  overhead.name = "layer_overhead", overhead.logScale = false;
  overhead.prior = toMicroseconds(device.layerOverhead), overhead.width = 50, overhead.lo = 0, overhead.hi = 1e6;
  overhead.step = 2;
  all.push_back(overhead);
  if (only.empty()) return all;
  std::vector<Figure> chosen;
  for (const std::string& name : only) {
    bool found = false;
    for (const Figure& f : all)
      if (f.name == name || (name == "attention" && f.name.rfind("attention", 0) == 0)) chosen.push_back(f), found = true;
    if (!found) {
      std::vector<std::string> names;
      for (const Figure& f : all) names.push_back(f.name);
      throw InputError("--fit: no figure '" + name + "' that these runs exercise (they do: " + joinNames(names) + ")");
    }
  }
  return chosen;
}

// Solves A x = b for a small symmetric positive definite A (Cholesky);
// returns A's inverse too when asked.
std::vector<double> solve(std::vector<std::vector<double>> a, std::vector<double> b,
                          std::vector<std::vector<double>>* inverse = nullptr) {
  const std::size_t n = b.size();
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < j; ++k) a[j][j] -= a[j][k] * a[j][k];
    a[j][j] = std::sqrt(std::max(a[j][j], 1e-300));
    for (std::size_t i = j + 1; i < n; ++i) {
      for (std::size_t k = 0; k < j; ++k) a[i][j] -= a[i][k] * a[j][k];
      a[i][j] /= a[j][j];
    }
  }
  auto solveL = [&](std::vector<double> v) { // L L^T x = v
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < i; ++k) v[i] -= a[i][k] * v[k];
      v[i] /= a[i][i];
    }
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t k = i + 1; k < n; ++k) v[i] -= a[k][i] * v[k];
      v[i] /= a[i][i];
    }
    return v;
  };
  if (inverse) {
    inverse->assign(n, std::vector<double>(n, 0));
    for (std::size_t c = 0; c < n; ++c) {
      std::vector<double> e(n, 0);
      e[c] = 1;
      std::vector<double> col = solveL(e);
      for (std::size_t r = 0; r < n; ++r) (*inverse)[r][c] = col[r];
    }
  }
  return solveL(std::move(b));
}

// The figures at one set of values, on every run.
struct Evaluation {
  std::vector<double> steps;     // seconds, per run
  std::vector<double> residuals; // every run's, one after another (rowOfStep_ says where each begins)
};

class ComputeFit {
public:
  ComputeFit(std::vector<Run>& runs, std::vector<Figure> figures, const ComputeCalibrationOptions& o)
      : runs_(runs), figures_(std::move(figures)), options_(o) {}

  // Each set of values simulated on every run (in parallel).
  std::vector<Evaluation> evaluate(const std::vector<std::vector<double>>& valueSets, const std::string& stage) {
    const std::size_t n = runs_.size(), jobs = valueSets.size() * n;
    std::vector<Evaluation> out(valueSets.size(), Evaluation{std::vector<double>(n), {}});
    std::vector<std::vector<std::vector<double>>> parts(valueSets.size(), std::vector<std::vector<double>>(n));
    std::mutex lock;
    int done = 0;
    runParallel(jobs, options_.threads, [&](std::size_t job) {
      const std::size_t set = job / n, i = job % n;
      Run& r = runs_[i];
      const Scenario& s = *r.scenario;
      Cluster cluster = s.cluster;
      cluster.device = withFigures(cluster.device, figures_, valueSets[set]);
      StepOptions options = stepOptionsOf(s, s.algorithms.front(), s.simulation.seed, nullptr);
      options.verify = !verified_; // each run's algorithms checked once, on the first pass
      StepResult step = simulateTrainingStep(cluster, *s.training, options);
      out[set].steps[i] = toSeconds(step.iteration);
      {
        std::lock_guard guard(lock);
        if (r.measuredSeconds == 0)
          r.measuredSeconds = r.profile && r.measured.figure == Measurement::Figure::Profile
                                  ? r.profile->step
                                  : measuredStepSeconds(r.measured, step, s.training->model);
      }
      parts[set][i] = residualsOf(r, step);
      std::lock_guard guard(lock);
      ++done;
      if (options_.progress) options_.progress(done, int(jobs), stage);
    });
    verified_ = true;
    simulations_ += int(jobs);
    rowOfStep_.clear();
    for (std::size_t set = 0; set < valueSets.size(); ++set)
      for (std::size_t i = 0; i < n; ++i) {
        if (set == 0) rowOfStep_.push_back(out[set].residuals.size());
        out[set].residuals.insert(out[set].residuals.end(), parts[set][i].begin(), parts[set][i].end());
      }
    return out;
  }

  // A run's residuals, each over its noise: its step's log error; with a
  // profile, each class's error as a share of the profiled step (a class
  // may be 0 on one side).
  static std::vector<double> residualsOf(const Run& r, const StepResult& step) {
    std::vector<double> out{std::log(toSeconds(step.iteration) / r.measuredSeconds) / kNoise};
    if (r.profile) {
      const ProfileClasses p = predictedClasses(step), &m = *r.profile;
      for (double ProfileClasses::*c : {&ProfileClasses::gemm, &ProfileClasses::attention, &ProfileClasses::memory,
                                        &ProfileClasses::idle})
        out.push_back((p.*c - m.*c) / m.step / kProfileNoise);
    }
    return out;
  }

  double cost(const std::vector<double>& residual, const std::vector<double>& values) const {
    double c = 0;
    for (double r : residual) c += r * r;
    for (std::size_t j = 0; j < figures_.size(); ++j) {
      double z = (values[j] - figures_[j].prior) / figures_[j].width;
      c += z * z;
    }
    return c;
  }

  std::vector<double> clamp(std::vector<double> v) const {
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = std::clamp(v[j], figures_[j].lo, figures_[j].hi);
    return v;
  }

  // The Jacobian of the residuals at `values`, by forward differences
  // (backward ones at an upper bound).
  std::vector<std::vector<double>> jacobian(const std::vector<double>& values, const Evaluation& at, int iteration) {
    std::vector<std::vector<double>> sets;
    std::vector<double> deltas;
    for (std::size_t j = 0; j < figures_.size(); ++j) {
      std::vector<double> v = values;
      double d = v[j] + figures_[j].step <= figures_[j].hi ? figures_[j].step : -figures_[j].step;
      v[j] += d;
      sets.push_back(v), deltas.push_back(d);
    }
    std::vector<Evaluation> moved = evaluate(sets, "sensitivities, iteration " + std::to_string(iteration));
    std::vector<std::vector<double>> J(at.residuals.size(), std::vector<double>(figures_.size()));
    for (std::size_t j = 0; j < figures_.size(); ++j)
      for (std::size_t row = 0; row < J.size(); ++row)
        J[row][j] = (moved[j].residuals[row] - at.residuals[row]) / deltas[j];
    return J;
  }

  // The normal matrix of the posterior at a Jacobian (of residuals over
  // their noise): J^T J + the priors.
  std::vector<std::vector<double>> precision(const std::vector<std::vector<double>>& J) const {
    const std::size_t p = figures_.size();
    std::vector<std::vector<double>> a(p, std::vector<double>(p, 0));
    for (const auto& row : J)
      for (std::size_t x = 0; x < p; ++x)
        for (std::size_t y = 0; y < p; ++y) a[x][y] += row[x] * row[y];
    for (std::size_t j = 0; j < p; ++j) a[j][j] += 1 / (figures_[j].width * figures_[j].width);
    return a;
  }

  const std::vector<Figure>& figures() const { return figures_; }
  int simulations() const { return simulations_; }
  // The figures at the device's own values (the priors' centres, within bounds).
  std::vector<double> presetValues() const {
    std::vector<double> values(figures_.size());
    for (std::size_t j = 0; j < figures_.size(); ++j) values[j] = figures_[j].prior;
    return clamp(values);
  }

  ComputeCalibration run() {
    const std::size_t p = figures_.size();
    std::vector<double> values = presetValues();
    Evaluation at = evaluate({values}, "the runs as the device stands").front();
    const std::vector<double> before = at.steps;
    double current = cost(at.residuals, values), lambda = 1e-3;
    std::vector<std::vector<double>> J;
    int iteration = 0;
    for (; iteration < kMaxIterations; ++iteration) {
      J = jacobian(values, at, iteration + 1);
      std::vector<std::vector<double>> a = precision(J);
      std::vector<double> g(p, 0);
      for (std::size_t row = 0; row < J.size(); ++row)
        for (std::size_t j = 0; j < p; ++j) g[j] -= J[row][j] * at.residuals[row];
      for (std::size_t j = 0; j < p; ++j) g[j] -= (values[j] - figures_[j].prior) / (figures_[j].width * figures_[j].width);
      bool accepted = false;
      double largestMove = 0;
      for (int attempt = 0; attempt < 4 && !accepted; ++attempt) {
        std::vector<std::vector<double>> damped = a;
        for (std::size_t j = 0; j < p; ++j) damped[j][j] *= 1 + lambda;
        std::vector<double> delta = solve(damped, g);
        std::vector<double> trial = values;
        for (std::size_t j = 0; j < p; ++j) trial[j] += delta[j];
        trial = clamp(trial);
        largestMove = 0;
        for (std::size_t j = 0; j < p; ++j)
          largestMove = std::max(largestMove, std::abs(trial[j] - values[j]) / figures_[j].width);
        if (largestMove < kConverged) break;
        Evaluation trialAt = evaluate({trial}, "a step, iteration " + std::to_string(iteration + 1)).front();
        double c = cost(trialAt.residuals, trial);
        if (c < current) {
          values = trial, at = std::move(trialAt), current = c;
          lambda = std::max(1e-6, lambda / 10);
          accepted = true;
        } else {
          lambda *= 10;
        }
      }
      if (!accepted || largestMove < kConverged) {
        ++iteration;
        break;
      }
    }
    return result(values, before, at, J, iteration);
  }

private:
  ComputeCalibration result(const std::vector<double>& values, const std::vector<double>& before, const Evaluation& at,
                            const std::vector<std::vector<double>>& J, int iterations) {
    const std::size_t p = figures_.size(), n = runs_.size();
    std::vector<std::vector<double>> covariance;
    solve(precision(J), std::vector<double>(p, 0), &covariance);
    ComputeCalibration c;
    double used = 0; // the figures the runs paid for: the share of each prior the data replaced
    for (std::size_t j = 0; j < p; ++j) {
      const Figure& f = figures_[j];
      CalibratedFigure out;
      out.name = f.name;
      out.unit = f.logScale ? "" : "us";
      auto shown = [&](double v) { return f.logScale ? std::exp(v) : v; };
      out.preset = shown(f.prior), out.fitted = shown(values[j]);
      out.sd = std::sqrt(covariance[j][j]), out.priorWidth = f.width;
      out.determined = out.sd < 0.5 * f.width;
      used += 1 - covariance[j][j] / (f.width * f.width);
      c.figures.push_back(out);
    }
    // The steps' residuals (a profile's classes fit the figures, but a
    // prediction is of a step).
    double squares = 0, carried = 0; // in the steps' log units: the rows times their noise
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t row = rowOfStep_[i];
      squares += std::pow(at.residuals[row] * kNoise, 2);
      for (std::size_t x = 0; x < p; ++x) // the figures' remaining uncertainty, through the run's sensitivities
        for (std::size_t y = 0; y < p; ++y)
          carried += J[row][x] * covariance[x][y] * J[row][y] * kNoise * kNoise / double(n);
    }
    const double spread = std::max(kNoise * kNoise, squares / std::max(1.0, double(n) - used));
    c.error = std::sqrt(spread + carried);
    for (std::size_t i = 0; i < n; ++i)
      c.runs.push_back({runs_[i].label, runs_[i].measured.text(), runs_[i].measuredSeconds, before[i], at.steps[i]});
    c.device = withFigures(runs_.front().scenario->cluster.device, figures_, values);
    c.fittedValues = values;
    c.device.calibration = {int(n), c.error};
    c.simulations = simulations_;
    c.iterations = iterations;
    c.yaml = deviceYaml(c);
    return c;
  }

  std::string deviceYaml(const ComputeCalibration& c) const {
    auto number = [](double v) {
      char b[32];
      std::snprintf(b, sizeof b, "%.4g", v);
      return std::string(b);
    };
    auto fixedPercent = [](double share) {
      char b[32];
      std::snprintf(b, sizeof b, "%.1f %%", 100 * share);
      return std::string(b);
    };
    const DeviceModel& d = c.device;
    std::vector<double> errorsBefore, errorsAfter;
    for (const CalibratedRun& r : c.runs)
      errorsBefore.push_back(std::abs(r.before / r.measured - 1)), errorsAfter.push_back(std::abs(r.after / r.measured - 1));
    std::string y = "# collsim calibrate" + (options_.source.empty() ? "" : " " + options_.source) + ": " + d.name +
                    "'s compute fitted to " + std::to_string(c.runs.size()) + " measured run(s), median |error| " +
                    fixedPercent(median(errorsBefore)) + " -> " + fixedPercent(median(errorsAfter)) + ".\n" +
                    "# Figures the runs did not determine stay near the preset's (collsim calibrate prints which).\n";
    y += "name: " + d.name + "\n";
    std::string kernels;
    for (const Figure& f : figures_) {
      if (f.name == "gemm_efficiency") y += "gemm_efficiency: " + number(d.gemmEfficiency) + "\n";
      else if (f.name == "memory_efficiency") y += "memory_efficiency: " + number(d.memoryEfficiency) + "\n";
      else if (f.name == "layer_overhead") y += "layer_overhead: " + number(toMicroseconds(d.layerOverhead)) + "us\n";
      else {
        auto [forward, backward] = kernelFigures(d, f.kernel);
        std::string pair = "[" + number(forward) + ", " + number(backward) + "]";
        if (f.kernel.empty()) y += "attention_efficiency: " + pair + "\n";
        else kernels += (kernels.empty() ? "" : ", ") + f.kernel + ": " + pair;
      }
    }
    if (!kernels.empty()) y += "attention_kernels: {" + kernels + "}\n";
    y += "calibration: {runs: " + std::to_string(c.runs.size()) + ", error: " + number(c.error) +
         (options_.source.empty() ? "" : ", source: \"" + options_.source + "\"") + "}\n";
    return y;
  }

  std::vector<Run>& runs_;
  std::vector<Figure> figures_;
  const ComputeCalibrationOptions& options_;
  int simulations_ = 0;
  bool verified_ = false;
  std::vector<std::size_t> rowOfStep_; // per run: the row of its step's residual
};

} // namespace

std::string runLabel(const Scenario& s) {
  std::string l = s.variant;
  for (const auto& [key, value] : s.sweepValues) l += (l.empty() ? "" : " ") + key + "=" + value;
  return l.empty() ? s.name : l;
}

std::vector<std::string> computeFigureNames() {
  return {"gemm_efficiency", "attention", "memory_efficiency", "layer_overhead"};
}

std::optional<Measurement> measurementOf(const Scenario& s) {
  if (s.measured) return s.measured;
  struct Published {
    const char* key;
    Measurement::Figure figure;
    double scale; // to the measurement's unit
  };
  for (Published p : {Published{"step_ms", Measurement::Figure::StepTime, 1e-3},
                      Published{"mfu", Measurement::Figure::Mfu, 1},
                      Published{"tokens_per_s", Measurement::Figure::TokensPerSecond, 1},
                      Published{"samples_per_s", Measurement::Figure::SamplesPerSecond, 1}})
    if (auto it = s.reference.find(p.key); it != s.reference.end() && it->second > 0) {
      Measurement m;
      m.figure = p.figure, m.value = it->second * p.scale, m.flops = FlopCount::Model;
      m.source = s.referenceInfo.source;
      return m;
    }
  return std::nullopt;
}

namespace {

// The measured runs named by `labels`, in their order; an unknown one is an
// error that lists the known.
std::vector<Run> named(const std::vector<Run>& runs, const std::vector<std::string>& labels, const char* option) {
  std::vector<Run> out;
  for (const std::string& l : labels) {
    auto it = std::find_if(runs.begin(), runs.end(), [&](const Run& r) { return r.label == l; });
    if (it == runs.end()) {
      std::vector<std::string> known;
      for (const Run& r : runs) known.push_back(r.label);
      throw InputError(std::string(option) + ": no measured run '" + l + "' (they are: " + joinNames(known) + ")");
    }
    out.push_back(*it);
  }
  return out;
}

} // namespace

ComputeCalibration calibrateCompute(const std::vector<Scenario>& study, const ComputeCalibrationOptions& options) {
  std::vector<Run> measured;
  for (const Scenario& s : study) {
    if (!s.loadError.empty()) throw InputError(runLabel(s) + ": " + s.loadError);
    if (!s.training) throw InputError(s.name + " is not a training study: calibrate fits a device to training runs");
    if (auto m = measurementOf(s)) {
      measured.push_back({&s, *m, runLabel(s), 0, std::nullopt});
      if (!m->profile.empty()) measured.back().profile = breakdownOf(readProfile(m->profile, m->profileDevice)).perStep;
    }
  }
  if (measured.empty())
    throw InputError("no run measures its step: give a run measured: {step_time: ...} (or tokens_per_second, "
                     "tflops_per_device, mfu)");
  if (!options.predict.empty() && options.on.empty()) throw InputError("--predict goes with --on (the runs to fit)");
  std::vector<Run> runs = options.on.empty() ? measured : named(measured, options.on, "--on");
  const DeviceModel& device = runs.front().scenario->cluster.device;
  for (const Run& r : runs)
    if (r.scenario->cluster.device.name != device.name)
      throw InputError("calibrate fits one device, but " + runs.front().label + " runs on " + device.name + " and " +
                       r.label + " on " + r.scenario->cluster.device.name + ": calibrate each device's runs apart");
  std::vector<Run> heldOut;
  if (!options.on.empty()) {
    heldOut = options.predict.empty() ? measured : named(measured, options.predict, "--predict");
    std::erase_if(heldOut, [&](const Run& r) {
      return r.scenario->cluster.device.name != device.name ||
             std::any_of(runs.begin(), runs.end(), [&](const Run& f) { return f.label == r.label; });
    });
  }
  ComputeFit fit(runs, figuresOf(runs, device, options.fit), options);
  ComputeCalibration c = fit.run();
  if (!heldOut.empty()) { // predicted by the preset and by the fitted figures, which the fit never set on them
    ComputeFit predictions(heldOut, fit.figures(), options);
    std::vector<Evaluation> at = predictions.evaluate({fit.presetValues(), c.fittedValues}, "the held-out runs");
    for (std::size_t i = 0; i < heldOut.size(); ++i)
      c.heldOut.push_back({heldOut[i].label, heldOut[i].measured.text(), heldOut[i].measuredSeconds, at[0].steps[i],
                           at[1].steps[i]});
    c.simulations += predictions.simulations();
  }
  return c;
}

} // namespace collsim
