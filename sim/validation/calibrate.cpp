#include "sim/validation/calibrate.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>

#include "sim/config/cluster_config.h"
#include "sim/config/library_config.h"
#include "sim/core/input_error.h"

namespace collsim {
namespace {

constexpr int kMaxEvaluations = 400;
constexpr double kSmallestStep = 1.0 / 64;

struct Parameter {
  std::string name;
  double lo, hi;
  bool logScale; // searched on a log scale (factors)
};

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> all = {
      {"efficiency", 0.2, 1, false},      {"network_efficiency", 0.2, 1, false}, {"launch", 0, 500, false},
      {"hop_scale", 0.1, 10, true},       {"channel_scale", 0.25, 4, true},
  };
  return all;
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
    for (const auto& a : assignments) applyOverride(copy, a, *origins);
    return loadCluster(ConfigNode(copy, origins));
  }
};

// The --set assignments that put `value` of parameter `name` into the file.
std::vector<std::string> assignmentsOf(const ClusterTree& tree, const std::string& name, double value) {
  if (name == "efficiency") return {"hccs.efficiency=" + number(value)};
  if (name == "network_efficiency") return {"roce.efficiency=" + number(value)};
  if (name == "launch") return {"library.launch=" + number(value) + "us"};
  std::vector<std::string> out;
  for (const auto& p : tree.library.protocols) {
    std::string at = "library.protocols." + p.name + ".";
    if (name == "hop_scale") {
      out.push_back(at + "hop_intra=" + number(toMicroseconds(p.hopIntra) * value) + "us");
      out.push_back(at + "hop_network=" + number(toMicroseconds(p.hopNetwork) * value) + "us");
    } else if (p.channelBandwidth > 0) {
      out.push_back(at + "channel_bandwidth=" + number(double(p.channelBandwidth) * value / 1e9) + "GB/s");
    }
  }
  return out;
}

// Where the search starts: the file's own value.
double startOf(const ClusterTree& tree, const std::string& name) {
  auto efficiencyAt = [&](const char* key) {
    YAML::Node n = tree.root[key];
    return n && n.IsMap() && n["efficiency"] ? n["efficiency"].as<double>() : 1.0;
  };
  if (name == "efficiency") return efficiencyAt("hccs");
  if (name == "network_efficiency") return efficiencyAt("roce");
  if (name == "launch") return toMicroseconds(tree.library.launch);
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

double objective(const Comparison& c) {
  double sum = 0, worst = 0;
  for (const auto& p : c.points) {
    double e = std::abs(std::log(p.predictedUs / p.measuredUs));
    sum += e;
    worst = std::max(worst, e);
  }
  return sum / double(c.points.size()) + worst / 8;
}

} // namespace

std::vector<std::string> calibrationParameterNames() {
  std::vector<std::string> names;
  for (const auto& p : parameters()) names.push_back(p.name);
  return names;
}

CalibrationResult calibrate(const MeasuredCurve& curve, Collective op, const std::string& clusterFile,
                            const std::vector<std::string>& overrides, const CalibrateOptions& o) {
  ClusterTree tree{clusterFile, loadYamlFile(clusterFile, "a cluster file"), {}};
  {
    auto origins = std::make_shared<ConfigOrigins>(clusterFile);
    for (const auto& a : overrides) applyOverride(tree.root, a, *origins);
  }
  ClusterSetup start = tree.load({});
  if (start.library.ideal())
    throw InputError(clusterFile + ": calibrate fits a collective library's figures; the cluster has none "
                     "(add library: nccl or library: hccl)");
  tree.library = start.library;
  if (tree.root["library"] && !tree.root["library"].IsMap()) {
    YAML::Node lib;
    lib["name"] = tree.root["library"].as<std::string>();
    tree.root["library"] = lib;
  }

  std::vector<Parameter> fit;
  std::vector<std::string> names = o.fit;
  if (names.empty())
    for (const auto& p : parameters())
      if (p.name != "network_efficiency" || start.cluster.servers > 1) names.push_back(p.name);
  for (const auto& n : names) {
    auto it = std::find_if(parameters().begin(), parameters().end(), [&](const Parameter& p) { return p.name == n; });
    if (it == parameters().end()) {
      std::string all;
      for (const auto& p : parameters()) all += (all.empty() ? "" : ", ") + p.name;
      throw InputError("--fit: no parameter '" + n + "' (parameters: " + all + ")");
    }
    if (n == "network_efficiency" && start.cluster.servers == 1)
      throw InputError("--fit network_efficiency: " + start.cluster.name + " has one server");
    fit.push_back(*it);
  }

  auto assignmentsAt = [&](const std::vector<double>& unit) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < fit.size(); ++i)
      for (auto& a : assignmentsOf(tree, fit[i].name, fromUnit(fit[i], unit[i]))) out.push_back(a);
    return out;
  };
  CalibrationResult r;
  auto evaluate = [&](const std::vector<double>& unit) {
    return objective(compareWithMeasured(curve, op, tree.load(assignmentsAt(unit)), o.compare));
  };

  std::vector<double> fileStart;
  for (const auto& p : fit) fileStart.push_back(toUnit(p, startOf(tree, p.name)));
  r.before = compareWithMeasured(curve, op, tree.load(assignmentsAt(fileStart)), o.compare);
  r.evaluations = 1;
  // Pattern search from `start`: each coordinate both ways (the two runs in
  // parallel), the better move taken; the step halves when no move helps.
  auto search = [&](std::vector<double> best, double bestScore, int budget) {
  for (double step = 0.25; step >= kSmallestStep && r.evaluations < budget;) {
    bool moved = false;
    for (std::size_t i = 0; i < fit.size() && r.evaluations < budget; ++i) {
      std::vector<double> up = best, down = best;
      up[i] = std::min(1.0, best[i] + step);
      down[i] = std::max(0.0, best[i] - step);
      double upScore = 0, downScore = 0;
      std::thread other([&] { upScore = up[i] == best[i] ? bestScore : evaluate(up); });
      downScore = down[i] == best[i] ? bestScore : evaluate(down);
      other.join();
      r.evaluations += 2;
      if (upScore < bestScore && upScore <= downScore) best = up, bestScore = upScore, moved = true;
      else if (downScore < bestScore) best = down, bestScore = downScore, moved = true;
    }
    if (!moved) step /= 2;
  }
  return std::make_pair(best, bestScore);
  };
  // From the file's values, then from three points across every range
  // (a quarter, a half, three quarters); the best end wins (the error
  // surface has shallow local minima along ridges of coupled parameters).
  auto [best, bestScore] = search(fileStart, objective(r.before), kMaxEvaluations / 4);
  for (double u : {0.25, 0.5, 0.75}) {
    std::vector<double> start(fit.size(), u);
    double startScore = evaluate(start);
    ++r.evaluations;
    auto [end, endScore] = search(start, startScore, r.evaluations + kMaxEvaluations / 4);
    if (endScore < bestScore) best = end, bestScore = endScore;
  }

  r.assignments = assignmentsAt(best);
  for (std::size_t i = 0; i < fit.size(); ++i) r.fitted[fit[i].name] = std::stod(number(fromUnit(fit[i], best[i])));
  YAML::Node out = YAML::Clone(tree.root);
  {
    auto origins = std::make_shared<ConfigOrigins>(clusterFile);
    for (const auto& a : r.assignments) applyOverride(out, a, *origins);
  }
  YAML::Emitter e;
  e << out;
  std::string header = "# Calibrated by collsim calibrate against " + curve.source + " from " + clusterFile + ":";
  for (const auto& [k, v] : r.fitted) header += " " + k + "=" + number(v);
  r.yaml = header + "\n" + e.c_str() + "\n";
  // The figures as the written file has them.
  auto origins = std::make_shared<ConfigOrigins>(clusterFile + " (calibrated)");
  r.after = compareWithMeasured(curve, op, loadCluster(ConfigNode(parseYamlMapping(r.yaml, clusterFile, "a cluster"), origins)),
                                o.compare);
  return r;
}

} // namespace collsim
