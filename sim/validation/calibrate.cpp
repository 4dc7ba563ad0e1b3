#include "sim/validation/calibrate.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "sim/config/cluster_config.h"
#include "sim/core/input_error.h"
#include "sim/run/schedule_cache.h"

namespace collsim {
namespace {

constexpr int kMaxEvaluations = 400;
// Comparisons cost what their simulations cost: the budget is this many
// simulated events in all (some 15-30 s on two cores), or kMinEvaluations
// comparisons like the first when that is more. Events, not seconds, so
// that a fit is the same on any machine.
constexpr double kEventBudget = 2e8;
constexpr int kMinEvaluations = 40;
constexpr double kSmallestStep = 1.0 / 64;
constexpr int kPassesPerStart = 3;

struct Parameter {
  std::string name;
  double lo, hi;
  bool logScale; // searched on a log scale (factors)
  // The prior's width about the file's value: a fitted value one width
  // away costs kPriorWeight in the objective (on a log scale, a factor of
  // exp(width)); 0: none (the switch points are the library's choices).
  double width;
  // In the default set (calibrate without --fit); else fitted when asked.
  bool byDefault = true;
};

// What one prior width costs: as much as 1 % more median error. The data
// must buy every move away from the file's (sourced) figures, so that a
// figure the curve hardly sees stays where its source put it.
constexpr double kPriorWeight = 0.01;

// switch_points stands for one switch point per protocol but the library's
// last (which runs the largest sizes), named PROTOCOL.max_bytes: from 4 KiB
// to 16 GiB, where the top means no switch point.
constexpr const char* kSwitchPoints = "switch_points";
constexpr const char* kMaxBytesSuffix = ".max_bytes";
constexpr double kSwitchLo = 4096, kSwitchHi = 16.0 * (1ull << 30);
constexpr const char* kStepCost = "step_cost";

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> all = {
      // Widths: a link's share of its line rate is known to a tenth (NCCL's
      // own figures, measured bus bandwidths), the network's to 0.15; its
      // latency to a factor of 3 (EFA's is ten times InfiniBand's); a
      // launch to 5 us (4.2 us measured on a DGX A100, nccl-tests #123);
      // the library's per-hop latencies and channel rates to a factor of 2.
      {"efficiency", 0.2, 1, false, 0.1},
      {"network_efficiency", 0.2, 1, false, 0.15},
      {"network_latency", 0.5, 50, true, std::log(3.0)},
      {"launch", 0, 500, false, 5},
      {"hop_scale", 0.1, 10, true, std::log(2.0)},
      {"channel_scale", 0.25, 4, true, std::log(2.0)},
      {kSwitchPoints, kSwitchLo, kSwitchHi, true, 0},
      // A fixed cost per pipeline step of the protocols whose lines carry
      // no flags (data share 1: NCCL's Simple, HCCL's), which end each step
      // with a memory fence and a flag the peer polls for (LL and LL128
      // flag every line and pay per byte instead); NPKit's per-step
      // timings are microseconds. Known to about 2 us; no source gives
      // NCCL's, so it is fitted when asked (--fit step_cost), from the
      // file's value.
      {kStepCost, 0, 16, false, 2, false},
  };
  return all;
}

bool isSwitchPoint(const std::string& name) { return name.ends_with(kMaxBytesSuffix); }
std::string protocolOfSwitchPoint(const std::string& name) {
  return name.substr(0, name.size() - std::string(kMaxBytesSuffix).size());
}

// A switch point lies between a sweep's sizes, powers of two: the nearest
// one; the top of the range is none (0).
Bytes switchBytes(double value) {
  if (value >= kSwitchHi) return 0;
  return Bytes(1) << int(std::lround(std::log2(std::max(value, kSwitchLo))));
}

std::string number(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// The cluster file as a tree, with the library section as a mapping (a
// preset name becomes {name: preset}) so that its figures can be set.
struct ClusterTree {
  std::string file;
  YAML::Node root;
  LibraryModel library; // as the file has it: the base of the scales

  ClusterSetup load(const std::vector<std::string>& assignments) const {
    auto origins = std::make_shared<ConfigOrigins>(file);
    YAML::Node copy = YAML::Clone(root);
    for (const auto& a : assignments) applyClusterOverride(copy, a, *origins);
    return loadCluster(ConfigNode(copy, origins));
  }
};

// Whether a protocol's step ends with a fence and a flag (step_cost above).
bool fencesEachStep(const ProtocolModel& p) { return p.dataShare >= 1; }

// The --set assignments that put `value` of parameter `name` into the file.
// The hop scale scales the protocols' step overheads too, unless the step
// cost is fitted beside it (then each figure has one parameter).
std::vector<std::string> assignmentsOf(const ClusterTree& tree, const std::string& name, double value,
                                       bool stepCostFitted) {
  if (name == "efficiency") return {"hccs.efficiency=" + number(value)};
  if (name == "network_efficiency") return {"roce.efficiency=" + number(value)};
  if (name == "network_latency") return {"roce.latency=" + number(value) + "us"};
  if (name == "launch") return {"library.launch=" + number(value) + "us"};
  if (isSwitchPoint(name)) {
    return {"library.protocols." + protocolOfSwitchPoint(name) + ".max_bytes=" + std::to_string(switchBytes(value))};
  }
  std::vector<std::string> out;
  for (const auto& p : tree.library.protocols) {
    std::string at = "library.protocols." + std::string(p.name()) + ".";
    if (name == kStepCost) {
      if (fencesEachStep(p)) out.push_back(at + "step_overhead=" + number(value) + "us");
    } else if (name == "hop_scale") {
      out.push_back(at + "hop_intra=" + number(toMicroseconds(p.hopIntra) * value) + "us");
      out.push_back(at + "hop_network=" + number(toMicroseconds(p.hopNetwork) * value) + "us");
      if (p.stepOverhead > 0 && !stepCostFitted) out.push_back(at + "step_overhead=" + number(toMicroseconds(p.stepOverhead) * value) + "us");
    } else {
      // Its own cap, and the part of its share of the links it fills (at most
      // all); not its bus ceiling, which is the device's, not a channel's. A
      // protocol that fills all of its share (Simple) keeps it: the links'
      // efficiency fits that, and a scale fitted to a two-server curve's
      // mid sizes would slow one server's rings with it.
      if (p.channelBandwidth > 0)
        out.push_back(at + "channel_bandwidth=" + number(double(p.channelBandwidth) * value / 1e9) + "GB/s");
      if (p.laneEfficiency > 0 && p.laneEfficiency < 1)
        out.push_back(at + "lane_efficiency=" + number(std::min(1.0, p.laneEfficiency * value)));
    }
  }
  return out;
}

// Where the search starts: the file's own value.
double startOf(const ClusterTree& tree, const std::string& name) {
  // Under either name (cluster_config.h): scale_up or hccs, scale_out or roce.
  auto sectionOf = [&](const char* key, const char* alias) { return tree.root[key] ? tree.root[key] : tree.root[alias]; };
  auto efficiencyAt = [&](const char* key, const char* alias) {
    YAML::Node n = sectionOf(key, alias);
    return n && n.IsMap() && n["efficiency"] ? n["efficiency"].as<double>() : 1.0;
  };
  if (name == "efficiency") return efficiencyAt("scale_up", "hccs");
  if (name == "network_efficiency") return efficiencyAt("scale_out", "roce");
  if (name == "network_latency") {
    YAML::Node n = sectionOf("scale_out", "roce");
    return n && n.IsMap() && n["latency"] ? toMicroseconds(parseTime(n["latency"].as<std::string>())) : 1.0;
  }
  if (name == "launch") return toMicroseconds(tree.library.launch);
  if (name == kStepCost) { // the largest of the fenced protocols' (they all take the fitted one)
    Time most = 0;
    for (const auto& p : tree.library.protocols)
      if (fencesEachStep(p)) most = std::max(most, p.stepOverhead);
    return toMicroseconds(most);
  }
  if (isSwitchPoint(name)) {
    std::optional<Protocol> kind = protocolOfName(protocolOfSwitchPoint(name));
    const ProtocolModel* p = kind ? tree.library.find(*kind) : nullptr;
    return p && p->maxBytes > 0 ? double(p->maxBytes) : kSwitchHi;
  }
  return 1;
}

double toUnit(const Parameter& p, double v) {
  v = std::clamp(v, p.lo, p.hi);
  return p.logScale ? std::log(v / p.lo) / std::log(p.hi / p.lo) : (v - p.lo) / (p.hi - p.lo);
}
double fromUnit(const Parameter& p, double u) {
  u = std::clamp(u, 0.0, 1.0);
  return p.logScale ? p.lo * std::pow(p.hi / p.lo, u) : p.lo + u * (p.hi - p.lo);
}

// What the search minimizes: the median absolute log error, plus half the
// mean (so that every size pulls) and a third of the largest (the targets
// bound the largest error as well as the median).
double objective(const Comparison& c) {
  std::vector<double> e;
  for (const auto& p : c.points) e.push_back(std::abs(std::log(p.predictedUs / p.measuredUs)));
  std::sort(e.begin(), e.end());
  double median = e.size() % 2 ? e[e.size() / 2] : (e[e.size() / 2 - 1] + e[e.size() / 2]) / 2;
  double mean = 0;
  for (double v : e) mean += v;
  mean /= double(e.size());
  return median + mean / 2 + e.back() / 3;
}

bool betweenServers(const std::string& name) { return name == "network_efficiency" || name == "network_latency"; }

// The protocols whose switch points are fitted: those the library may pick
// from (its `protocol:` allows them), but the last.
std::vector<std::string> switchingProtocols(const LibraryModel& library) {
  std::vector<std::string> out;
  for (const ProtocolModel* p : library.candidates()) out.push_back(p->name());
  if (!out.empty()) out.pop_back();
  return out;
}

// The parameters asked for, or the default set: all the cluster has.
std::vector<Parameter> chosen(const std::vector<std::string>& asked, const Cluster& cluster,
                              const LibraryModel& library) {
  std::vector<std::string> names = asked;
  if (names.empty())
    for (const auto& p : parameters())
      if (p.byDefault && (!betweenServers(p.name) || cluster.servers > 1) &&
          (p.name != kSwitchPoints || !switchingProtocols(library).empty()))
        names.push_back(p.name);
  std::vector<Parameter> fit;
  for (const auto& n : names) {
    if (n == kSwitchPoints) {
      std::vector<std::string> protocols = switchingProtocols(library);
      if (protocols.empty())
        throw InputError("--fit " + n + ": library " + library.name() + " has one protocol to run (" +
                         library.protocol.text() + "), no switch between protocols");
      for (const auto& protocol : protocols) fit.push_back({protocol + kMaxBytesSuffix, kSwitchLo, kSwitchHi, true, 0});
      continue;
    }
    auto it = std::find_if(parameters().begin(), parameters().end(), [&](const Parameter& p) { return p.name == n; });
    if (it == parameters().end()) {
      std::string all;
      for (const auto& p : parameters()) all += (all.empty() ? "" : ", ") + p.name;
      throw InputError("--fit: no parameter '" + n + "' (parameters: " + all + ")");
    }
    if (betweenServers(n) && cluster.servers == 1)
      throw InputError("--fit " + n + ": " + cluster.name + " has one server");
    fit.push_back(*it);
  }
  return fit;
}

// A point of the search: each parameter's place in its range, 0..1.
using Point = std::vector<double>;

// The fit: comparisons at points, and a bounded pattern search over them.
struct Fit {
  const MeasuredCurve& curve;
  Collective op;
  const ClusterTree& tree;
  std::vector<Parameter> parameters;
  const CompareOptions& options;
  Point center; // the file's values: the priors' centres
  int evaluations = 0;
  double spentEvents = 0;
  double budget = kEventBudget;
  std::function<void(double, const std::string&)> progress;

  void report(double share, const std::string& stage) const {
    if (progress) progress(share, stage);
  }

  // The priors' cost of `at`: kPriorWeight per squared width from the centre.
  double prior(const Point& at) const {
    double sum = 0;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const Parameter& p = parameters[i];
      if (p.width <= 0) continue;
      double x = fromUnit(p, at[i]), x0 = fromUnit(p, center[i]);
      double z = p.logScale ? std::log(x / x0) / p.width : (x - x0) / p.width;
      sum += z * z;
    }
    return kPriorWeight * sum;
  }
  double score(const Comparison& c, const Point& at) const { return objective(c) + prior(at); }
  // `at` with parameter i moved by `widths` of its prior (clamped to its range).
  Point moved(const Point& at, std::size_t i, double widths) const {
    const Parameter& p = parameters[i];
    double x = fromUnit(p, at[i]);
    x = p.logScale ? x * std::exp(widths * p.width) : x + widths * p.width;
    Point out = at;
    out[i] = toUnit(p, x);
    return out;
  }

  bool spent(double untilEvents) const { return spentEvents >= untilEvents || evaluations >= kMaxEvaluations; }
  std::vector<std::string> assignments(const Point& at) const {
    std::vector<std::string> out;
    const bool stepCost = std::any_of(parameters.begin(), parameters.end(), [](const Parameter& p) { return p.name == kStepCost; });
    for (std::size_t i = 0; i < parameters.size(); ++i)
      for (auto& a : assignmentsOf(tree, parameters[i].name, fromUnit(parameters[i], at[i]), stepCost)) out.push_back(a);
    return out;
  }
  // One thread per comparison: the search runs two at once.
  Comparison compare(const Point& at) const {
    CompareOptions one = options;
    one.threads = 1;
    return compareWithMeasured(curve, op, tree.load(assignments(at)), one);
  }

  // From `best`: each coordinate both ways (the two comparisons on two
  // threads), the better move taken; the step halves when no move helps;
  // until the step is below kSmallestStep or the comparisons have spent
  // `untilEvents` simulated events in all.
  std::pair<Point, double> search(Point best, double bestScore, double untilEvents) {
    for (double step = 0.25; step >= kSmallestStep && !spent(untilEvents);) {
      bool moved = false;
      for (std::size_t i = 0; i < best.size() && !spent(untilEvents); ++i) {
        Point up = best, down = best;
        up[i] = std::min(1.0, best[i] + step);
        down[i] = std::max(0.0, best[i] - step);
        double upScore = bestScore, downScore = bestScore;
        std::uint64_t upEvents = 0, downEvents = 0;
        std::thread other([&] {
          if (up[i] == best[i]) return;
          Comparison c = compare(up);
          upScore = score(c, up), upEvents = c.events;
        });
        if (down[i] != best[i]) {
          Comparison c = compare(down);
          downScore = score(c, down), downEvents = c.events;
        }
        other.join();
        evaluations += 2;
        spentEvents += double(upEvents + downEvents);
        report(std::max(spentEvents / budget, double(evaluations) / kMaxEvaluations), "searching");
        if (upScore < bestScore && upScore <= downScore) best = up, bestScore = upScore, moved = true;
        else if (downScore < bestScore) best = down, bestScore = downScore, moved = true;
      }
      if (!moved) step /= 2;
    }
    return {best, bestScore};
  }

  // The parameters the curve hardly sees: moving one a prior width either
  // way from `best` changes the fit's error by less than that width costs,
  // so the prior, not the measurement, holds it (two comparisons each, on
  // two threads).
  std::vector<std::string> poorlyDetermined(const Point& best, double bestError) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      if (parameters[i].width <= 0) continue;
      Point up = moved(best, i, 1), down = moved(best, i, -1);
      double upError = bestError + 1, downError = bestError + 1;
      std::thread other([&] {
        if (up[i] != best[i]) upError = objective(compare(up));
      });
      if (down[i] != best[i]) downError = objective(compare(down));
      other.join();
      evaluations += 2;
      report(double(i + 1) / double(parameters.size()), "which figures the curve determines");
      if (std::min(upError, downError) - bestError < kPriorWeight) out.push_back(parameters[i].name);
    }
    return out;
  }
};

// The cluster file as the fit leaves it, with a header that says so.
std::string calibratedYaml(const ClusterTree& tree, const CalibrationResult& r, const std::string& measured) {
  YAML::Node out = YAML::Clone(tree.root);
  auto origins = std::make_shared<ConfigOrigins>(tree.file);
  for (const auto& a : r.assignments) applyClusterOverride(out, a, *origins);
  YAML::Emitter e;
  e << out;
  std::string header = "# Calibrated by collsim calibrate against " + measured + " from " + tree.file + ":";
  for (const auto& [k, v] : r.fitted) header += " " + k + "=" + (isSwitchPoint(k) ? std::to_string(Bytes(v)) : number(v));
  return header + "\n" + e.c_str() + "\n";
}

} // namespace

std::vector<std::string> calibrationParameterNames() {
  std::vector<std::string> names;
  for (const auto& p : parameters()) names.push_back(p.name);
  return names;
}

// The cluster file with `overrides` applied: where a fit starts.
static ClusterTree startingTree(const std::string& clusterFile, const std::vector<std::string>& overrides) {
  ClusterTree tree{clusterFile, loadYamlFile(clusterFile, "a cluster file"), {}};
  {
    auto origins = std::make_shared<ConfigOrigins>(clusterFile);
    for (const auto& a : overrides) applyClusterOverride(tree.root, a, *origins);
  }
  ClusterSetup start = tree.load({});
  if (start.library.ideal())
    throw InputError(clusterFile + ": calibrate fits a collective library's figures; the cluster has none "
                     "(add library: nccl or library: hccl)");
  tree.library = start.library;
  libraryAsMapping(tree.root);
  return tree;
}

WorkEstimate estimateCalibration(const MeasuredCurve& curve, Collective op, const std::string& clusterFile,
                                 const std::vector<std::string>& overrides, const CalibrateOptions& o) {
  ClusterTree tree = startingTree(clusterFile, overrides);
  ClusterSetup start = tree.load({});
  const std::size_t fitted = chosen(o.fit, start.cluster, start.library).size();
  WorkEstimate fit = estimateComparison(curve, op, start, o.compare);
  // The search's comparisons (its budget of events or kMaxEvaluations,
  // whichever ends it first, at least kMinEvaluations), two a parameter to
  // say which the curve determines, and the calibrated file's own.
  const double one = std::max(fit.events, 1.0);
  const double searched = std::min(double(kMaxEvaluations), std::max(kEventBudget / one, double(kMinEvaluations)));
  const double comparisons = searched + 2.0 * double(fitted) + 1;
  // What a comparison costs varies with its algorithms more than the
  // model of a run's events, messages and routes says (a hierarchy of NVLS
  // and a tree asks its schedule for far more a message than a ring: 3.5x
  // on the H100 pair's log). One estimated well under a second is run on
  // one thread as the search runs it, twice: the first builds the
  // schedules the fit's comparisons share (calibrate()), the second is
  // timed.
  constexpr double kTimedComparison = 0.5;
  if (fit.seconds() < kTimedComparison) {
    ScheduleCache schedules;
    CompareOptions once = o.compare;
    once.approved = true;
    once.threads = 1;
    once.schedules = &schedules;
    compareWithMeasured(curve, op, start, once);
    const auto started = std::chrono::steady_clock::now();
    compareWithMeasured(curve, op, start, once);
    fit.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  fit.events *= comparisons;
  fit.wallSeconds *= comparisons;
  fit.runs = comparisons; // the search runs two at once
  return fit;
}

CalibrationResult calibrate(const MeasuredCurve& curve, Collective op, const std::string& clusterFile,
                            const std::vector<std::string>& overrides, const CalibrateOptions& o) {
  ClusterTree tree = startingTree(clusterFile, overrides);
  ClusterSetup start = tree.load({});

  // Every comparison runs the log's sizes again, on the same cluster shape.
  ScheduleCache schedules;
  CompareOptions compare = o.compare;
  compare.schedules = &schedules;
  Fit fit{curve, op, tree, chosen(o.fit, start.cluster, start.library), compare, {}, 0, 0, kEventBudget, o.progress};
  CalibrationResult r;
  Point fileStart;
  for (const auto& p : fit.parameters) fileStart.push_back(toUnit(p, startOf(tree, p.name)));
  fit.center = fileStart;
  r.before = fit.compare(fileStart);
  fit.evaluations = 1;
  fit.spentEvents = double(r.before.events);
  const double budget = std::max(kEventBudget, kMinEvaluations * double(r.before.events));
  fit.budget = budget;
  // From the file's values, then from up to three points across every
  // range (a quarter, a half, three quarters); the best end wins (the error
  // surface has shallow local minima along ridges of coupled parameters).
  // Each search has an equal share of what is left of the budget, and a
  // start is made only when that share buys kPassesPerStart passes over the
  // parameters (a pass: two comparisons a parameter) at the comparisons'
  // cost so far: on a curve whose simulation costs much, one search from
  // the file's values gets further than four that stop halfway.
  const double pass = 2.0 * double(fit.parameters.size());
  auto affordable = [&](double events) {
    return std::min(double(kMaxEvaluations - fit.evaluations), events / (fit.spentEvents / fit.evaluations)) / pass;
  };
  const double across[] = {0.25, 0.5, 0.75};
  const int others = int(std::size(across));
  int starts = std::clamp(int(affordable(budget) / kPassesPerStart), 1, 1 + others);
  auto [best, bestScore] = fit.search(fileStart, fit.score(r.before, fileStart), fit.spentEvents + budget / starts);
  for (int k = 0; k < others; ++k) {
    starts = std::min(others - k, int(affordable(budget - fit.spentEvents) / kPassesPerStart));
    if (starts < 1 || fit.spent(budget)) break;
    Point from(fit.parameters.size(), across[k]);
    Comparison start = fit.compare(from);
    double fromScore = fit.score(start, from);
    ++fit.evaluations;
    fit.spentEvents += double(start.events);
    auto [end, endScore] = fit.search(from, fromScore, fit.spentEvents + (budget - fit.spentEvents) / starts);
    if (endScore < bestScore) best = end, bestScore = endScore;
  }

  r.poorlyDetermined = fit.poorlyDetermined(best, bestScore - fit.prior(best));
  r.evaluations = fit.evaluations;
  r.assignments = fit.assignments(best);
  for (std::size_t i = 0; i < best.size(); ++i) {
    double v = fromUnit(fit.parameters[i], best[i]);
    r.fitted[fit.parameters[i].name] = isSwitchPoint(fit.parameters[i].name) ? double(switchBytes(v)) : std::stod(number(v));
  }
  r.yaml = calibratedYaml(tree, r, curve.source);
  // The figures as the written file has them.
  auto origins = std::make_shared<ConfigOrigins>(clusterFile + " (calibrated)");
  r.after = compareWithMeasured(
      curve, op, loadCluster(ConfigNode(parseYamlMapping(r.yaml, clusterFile, "a cluster"), origins)), compare);
  return r;
}

} // namespace collsim
