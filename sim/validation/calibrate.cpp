#include "sim/validation/calibrate.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <thread>
#include <tuple>

#include "sim/config/cluster_config.h"
#include "sim/core/input_error.h"
#include "sim/run/schedule_cache.h"

namespace collsim {
namespace {

constexpr int kMaxEvaluations = 400;
// Comparisons cost what their simulations cost: the budget is this many
// simulated events in all (some 5-7 s on two cores), or kMinEvaluations
// comparisons like the first when that is more. Events, not seconds, so
// that a fit is the same on any machine. The H100 pair's log, whose
// comparisons cost the most, fits to 6.4 % median with 59 comparisons
// (this budget) and to 6.3 % with 180 (2e8, 20 s).
constexpr double kEventBudget = 6e7;
constexpr int kMinEvaluations = 40;
constexpr double kSmallestStep = 1.0 / 64;
constexpr int kPassesPerStart = 3;
// Comparisons past the search's budget, for `figures` fitted: per figure two
// to say whether the curves determine it and at most four past an edge of
// its range; per stage (two) a start and at most two at its end.
constexpr double comparisonsAfterSearch(double figures) { return 6 * figures + 2 * 3; }

struct Parameter {
  std::string name;
  // The physical range: the search stays inside it.
  double lo, hi;
  bool logScale; // searched on a log scale (factors)
  // The prior's width about the file's value: a fitted value one width
  // away costs kPriorWeight in the objective (on a log scale, a factor of
  // exp(width)); 0: none (the switch points are the library's choices).
  double width;
  // In the default set (calibrate without --fit); else fitted when asked.
  bool byDefault = true;
  // Where the range's edges come from.
  const char* source = "";
  // How far past an edge the fit looks for what the curves want (the
  // file's loader accepts it: an efficiency stays in (0, 1]).
  double outerLo = 0, outerHi = 0;
  // A share of a link's line rate: fitted first, on the sizes that run at
  // the links' rate (kLineRateFrom), the others held at their starts.
  bool lineRate = false;
};

// The sizes a link's rate governs: from 64 MiB (size_regions.h's large
// band, bandwidth-bound), or a log's three largest when it has fewer
// there. Fitted on every size, a link's efficiency also bends to what the
// model misses in the mid sizes (per-step and pipeline costs) and
// carries that to every other size and node count: the p4d pair's fit
// put EFA at 0.34 of line rate to slow its mid sizes, the H100 pair's
// NVLink at 0.72 to slow its NVLS tree.
constexpr Bytes kLineRateFrom = Bytes(64) << 20;
constexpr std::size_t kLineRateSizes = 3;

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
      {"efficiency", 0.75, 1, false, 0.1, true,
       "NCCL rates NVLink 2-4 at 0.80-0.82 of line rate (src/graph/topo.h: SM70-SM90_NVLINK_BW, 20-20.6 GB/s of a "
       "25 GB/s link); from that less half a prior width to the line rate",
       0.3, 1, true},
      {"network_efficiency", 0.55, 0.98, false, 0.15, true,
       "EFA on p4d delivers 0.60-0.65 of its line rate to NCCL at 1 GiB (NVIDIA/nccl #527); InfiniBand 46-48 of 50 "
       "GB/s per NDR NIC (nccl-tests #290) and 24 of 25 per HDR NIC (nccl-tests #119)",
       0.2, 1, true},
      {"network_latency", 0.2, 10, true, std::log(3.0), true,
       "one way, per link: InfiniBand's NIC to NIC is about 0.8 us (ib_send_lat, 32 B), two links through a switch; "
       "EFA's 10-15 us (AWS), the same two links",
       0.05, 50},
      {"launch", 1, 20, false, 5, true,
       "a collective's launch on a DGX A100 measures 4.2 us (nccl-tests #123); none is free (a host call and a "
       "doorbell), none costs 20 us on a host that keeps up",
       0, 200},
      {"hop_scale", 0.5, 2, true, std::log(2.0), true,
       "NCCL's per-hop latencies are its own measured constants (src/graph/tuning.cc, hwLatencies); a factor of 2 "
       "either way",
       0.1, 10},
      {"channel_scale", 0.5, 2, true, std::log(2.0), true,
       "NCCL's per-channel rates are its own (src/graph/tuning.cc, perChMaxRingLL128Bws, llMaxBws); a factor of 2 "
       "either way",
       0.25, 4},
      {kSwitchPoints, kSwitchLo, kSwitchHi, true, 0},
      // A fixed cost per pipeline step of the protocols whose lines carry
      // no flags (data share 1: NCCL's Simple, HCCL's), which end each step
      // with a memory fence and a flag the peer polls for (LL and LL128
      // flag every line and pay per byte instead); NPKit's per-step
      // timings are microseconds. Known to about 2 us; no source gives
      // NCCL's, so it is fitted when asked (--fit step_cost), from the
      // file's value.
      {kStepCost, 0, 8, false, 2, false,
       "NPKit's per-step timings of NCCL's Simple protocol are microseconds: a fence and a flag a step", 0, 16},
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

std::string signedPercent(double share) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", share * 100);
  return b;
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
// Several logs' sizes are pooled.
double objective(const std::vector<Comparison>& logs) {
  std::vector<double> e;
  for (const Comparison& c : logs)
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
// `network`: a log ran on several servers; `hostSeen`: a log's thread
// drove several devices, so that the host's launches can set a size's
// time (compare.h); with one device a thread they hide behind the devices
// and the launch is left out of the default set.
std::vector<Parameter> chosen(const std::vector<std::string>& asked, bool network, bool hostSeen,
                              const std::string& clusterName, const LibraryModel& library) {
  std::vector<std::string> names = asked;
  if (names.empty())
    for (const auto& p : parameters())
      if (p.byDefault && (!betweenServers(p.name) || network) && (p.name != "launch" || hostSeen) &&
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
    if (betweenServers(n) && !network)
      throw InputError("--fit " + n + ": " + clusterName + " has one server");
    fit.push_back(*it);
  }
  return fit;
}

// A point of the search: each parameter's place in its range, 0..1.
using Point = std::vector<double>;

// The fit: comparisons at points, and a bounded pattern search over them.
struct Fit {
  const std::vector<CalibrationLog>& logs;
  const ClusterTree& tree;
  std::vector<Parameter> parameters;
  const CompareOptions& options;
  Point center; // the file's values: the priors' centres
  int evaluations = 0;
  double spentEvents = 0;
  double budget = kEventBudget;
  std::function<void(double, const std::string&)> progress;
  // The stage: the line rates on their sizes (lineRateFrom, per log), or
  // the rest on every size.
  bool lineRateStage = false;
  std::vector<Bytes> lineRateFrom;

  bool inStage(std::size_t i) const { return parameters[i].lineRate == lineRateStage; }

  void report(double share, const std::string& stage) const {
    if (progress) progress(share, stage);
  }

  // The priors' cost of figures given as values (past a range's edge too):
  // kPriorWeight per squared width from the centre.
  double priorOfValues(const std::vector<double>& values) const {
    double sum = 0;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const Parameter& p = parameters[i];
      if (p.width <= 0) continue;
      double x0 = fromUnit(p, center[i]);
      double z = p.logScale ? std::log(values[i] / x0) / p.width : (values[i] - x0) / p.width;
      sum += z * z;
    }
    return kPriorWeight * sum;
  }
  double prior(const Point& at) const { return priorOfValues(valuesOf(at)); }
  double score(const std::vector<Comparison>& c, const Point& at) const { return objective(c) + prior(at); }
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
  std::vector<double> valuesOf(const Point& at) const {
    std::vector<double> v;
    for (std::size_t i = 0; i < parameters.size(); ++i) v.push_back(fromUnit(parameters[i], at[i]));
    return v;
  }
  std::vector<std::string> assignments(const std::vector<double>& values) const {
    std::vector<std::string> out;
    const bool stepCost = std::any_of(parameters.begin(), parameters.end(), [](const Parameter& p) { return p.name == kStepCost; });
    for (std::size_t i = 0; i < parameters.size(); ++i)
      for (auto& a : assignmentsOf(tree, parameters[i].name, values[i], stepCost)) out.push_back(a);
    return out;
  }
  // Every log at these figures (values, not a point: past a range's edge
  // too), on `threads` (one when the search runs two at once; 0: every core).
  std::vector<Comparison> compareValues(const std::vector<double>& values, int threads = 1) const {
    std::vector<Comparison> out;
    const std::vector<std::string> fitted = assignments(values);
    for (const CalibrationLog& log : logs) {
      CompareOptions one = options;
      one.threads = threads;
      one.algorithm = log.algorithm;
      if (lineRateStage) one.minBytes = std::max(one.minBytes, lineRateFrom[&log - logs.data()]);
      std::vector<std::string> sets = fitted;
      sets.insert(sets.end(), log.sets.begin(), log.sets.end());
      out.push_back(compareWithMeasured(log.curve, log.op, tree.load(sets), one));
    }
    return out;
  }
  std::vector<Comparison> compare(const Point& at, int threads = 1) const { return compareValues(valuesOf(at), threads); }
  // Two sets of figures compared at once, a thread each (one alone on every
  // core); an absent one is not compared (its result is empty).
  std::pair<std::vector<Comparison>, std::vector<Comparison>> compareTwo(const std::optional<std::vector<double>>& a,
                                                                         const std::optional<std::vector<double>>& b) const {
    const int each = a && b ? 1 : 0;
    std::vector<Comparison> first, second;
    std::thread other([&] {
      if (a) first = compareValues(*a, each);
    });
    if (b) second = compareValues(*b, each);
    other.join();
    return {std::move(first), std::move(second)};
  }
  // One comparison alone: on every core.
  std::vector<Comparison> compareAlone(const Point& at) const { return compare(at, 0); }
  static std::uint64_t eventsOf(const std::vector<Comparison>& c) {
    std::uint64_t n = 0;
    for (const auto& one : c) n += one.events;
    return n;
  }

  // From `best`: each coordinate both ways (the two comparisons on two
  // threads), the better move taken; the step halves when no move helps;
  // until the step is below kSmallestStep or the comparisons have spent
  // `untilEvents` simulated events in all.
  std::pair<Point, double> search(Point best, double bestScore, double untilEvents) {
    for (double step = 0.25; step >= kSmallestStep && !spent(untilEvents);) {
      bool moved = false;
      for (std::size_t i = 0; i < best.size() && !spent(untilEvents); ++i) {
        if (!inStage(i)) continue;
        Point up = best, down = best;
        up[i] = std::min(1.0, best[i] + step);
        down[i] = std::max(0.0, best[i] - step);
        auto [upC, downC] = compareTwo(up[i] != best[i] ? std::optional(valuesOf(up)) : std::nullopt,
                                       down[i] != best[i] ? std::optional(valuesOf(down)) : std::nullopt);
        const double upScore = upC.empty() ? bestScore : score(upC, up);
        const double downScore = downC.empty() ? bestScore : score(downC, down);
        const std::uint64_t upEvents = eventsOf(upC), downEvents = eventsOf(downC);
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

  // The parameters the curves hardly see: moving one a prior width either
  // way from `best` changes the fit's error by less than that width costs,
  // so the prior, not the measurement, holds it (two comparisons each, on
  // two threads).
  std::vector<std::size_t> poorlyDetermined(const Point& best, double bestError) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      if (parameters[i].width <= 0 || !inStage(i)) continue;
      Point up = moved(best, i, 1), down = moved(best, i, -1);
      auto [upC, downC] = compareTwo(up[i] != best[i] ? std::optional(valuesOf(up)) : std::nullopt,
                                     down[i] != best[i] ? std::optional(valuesOf(down)) : std::nullopt);
      const double upError = upC.empty() ? bestError + 1 : objective(upC);
      const double downError = downC.empty() ? bestError + 1 : objective(downC);
      evaluations += 2;
      report(double(i + 1) / double(parameters.size()), "which figures the curves determine");
      if (std::min(upError, downError) - bestError < kPriorWeight) out.push_back(i);
    }
    return out;
  }

  // A figure at an edge of its range, looked at a quarter, a half, one and
  // two prior widths past it (within what the file accepts; two
  // comparisons at a time): when one scores better than the edge, error
  // and prior as the search counts them, the curves want it there. The
  // sizes that pull it: those whose error shrinks most, at most three.
  std::optional<OutsideRange> pastEdge(const Point& best, const std::vector<Comparison>& atBest, std::size_t i) {
    const Parameter& p = parameters[i];
    if (p.width <= 0 || (best[i] > 0 && best[i] < 1)) return std::nullopt;
    const double edge = fromUnit(p, best[i]), outward = best[i] <= 0 ? -1 : 1;
    std::vector<double> tried;
    for (double widths : {0.25, 0.5, 1.0, 2.0}) {
      double x = p.logScale ? edge * std::exp(outward * widths * p.width) : edge + outward * widths * p.width;
      x = std::clamp(x, p.outerLo, p.outerHi);
      if (x != edge && (tried.empty() || x != tried.back())) tried.push_back(x);
    }
    const std::vector<double> atEdge = valuesOf(best);
    double wantedScore = objective(atBest) + priorOfValues(atEdge), wantedValue = edge;
    std::vector<Comparison> wanted;
    for (std::size_t k = 0; k < tried.size(); k += 2) {
      std::vector<double> first = atEdge, second = atEdge;
      first[i] = tried[k];
      if (k + 1 < tried.size()) second[i] = tried[k + 1];
      auto [a, b] = compareTwo(first, k + 1 < tried.size() ? std::optional(second) : std::nullopt);
      evaluations += 2;
      for (const auto& [c, v] : {std::pair{&a, &first}, std::pair{&b, &second}}) {
        if (c->empty()) continue;
        const double sc = objective(*c) + priorOfValues(*v);
        if (sc < wantedScore) wantedScore = sc, wantedValue = (*v)[i], wanted = *c;
      }
    }
    if (wanted.empty()) return std::nullopt;
    OutsideRange r{p.name, edge, wantedValue, p.lo, p.hi, p.source, {}};
    struct Pull {
      double gain;
      std::string text;
    };
    std::vector<Pull> pulls;
    for (std::size_t k = 0; k < wanted.size(); ++k)
      for (std::size_t j = 0; j < wanted[k].points.size(); ++j) {
        const ComparedPoint &from = atBest[k].points[j], &to = wanted[k].points[j];
        double gain = std::abs(std::log(from.predictedUs / from.measuredUs)) - std::abs(std::log(to.predictedUs / to.measuredUs));
        if (gain <= 0) continue;
        std::string text = formatBytes(from.bytes) + " " + signedPercent(from.error()) + " -> " + signedPercent(to.error());
        if (logs.size() > 1) text += " (" + logs[k].curve.source + ")";
        pulls.push_back({gain, text});
      }
    std::sort(pulls.begin(), pulls.end(), [](const Pull& a, const Pull& b) { return a.gain > b.gain; });
    for (std::size_t k = 0; k < pulls.size() && k < 3; ++k) r.pulledBy.push_back(pulls[k].text);
    return r;
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

// Whether any log runs on several servers (the network's figures fitted).
static bool anyNetwork(const ClusterTree& tree, const std::vector<CalibrationLog>& logs) {
  for (const CalibrationLog& log : logs)
    if (tree.load(log.sets).cluster.servers > 1) return true;
  return false;
}

static std::vector<Parameter> fittedParameters(const ClusterTree& tree, const std::vector<CalibrationLog>& logs,
                                               const CalibrateOptions& o) {
  if (logs.empty()) throw InputError("calibrate: no measured log");
  const bool hostSeen = std::any_of(logs.begin(), logs.end(), [](const CalibrationLog& l) { return l.curve.devicesPerThread > 1; });
  return chosen(o.fit, anyNetwork(tree, logs), hostSeen, tree.load({}).cluster.name, tree.library);
}

WorkEstimate estimateCalibration(const std::vector<CalibrationLog>& logs, const std::string& clusterFile,
                                 const std::vector<std::string>& overrides, const CalibrateOptions& o) {
  ClusterTree tree = startingTree(clusterFile, overrides);
  const std::size_t fitted = fittedParameters(tree, logs, o).size();
  // One comparison of every log; its memory is the largest log's.
  WorkEstimate fit;
  std::vector<ClusterSetup> setups;
  for (const CalibrationLog& log : logs) {
    CompareOptions one = o.compare;
    one.algorithm = log.algorithm;
    setups.push_back(tree.load(log.sets));
    fit.addSequential(estimateComparison(log.curve, log.op, setups.back(), one));
  }
  // The search's comparisons (its budget of events or kMaxEvaluations,
  // whichever ends it first, at least kMinEvaluations), those after it, and
  // the calibrated file's own.
  const double one = std::max(fit.events, 1.0);
  const double searched = std::min(double(kMaxEvaluations), std::max(kEventBudget / one, double(kMinEvaluations)));
  const double comparisons = searched + comparisonsAfterSearch(double(fitted)) + 1;
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
    auto compareAll = [&] {
      for (std::size_t k = 0; k < logs.size(); ++k) {
        CompareOptions once = o.compare;
        once.algorithm = logs[k].algorithm;
        once.approved = true;
        once.threads = 1;
        once.schedules = &schedules;
        compareWithMeasured(logs[k].curve, logs[k].op, setups[k], once);
      }
    };
    compareAll();
    const auto started = std::chrono::steady_clock::now();
    compareAll();
    fit.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  fit.events *= comparisons;
  fit.wallSeconds *= comparisons;
  fit.runs = comparisons; // the search runs two at once
  return fit;
}

CalibrationResult calibrate(const std::vector<CalibrationLog>& logs, const std::string& clusterFile,
                            const std::vector<std::string>& overrides, const CalibrateOptions& o) {
  ClusterTree tree = startingTree(clusterFile, overrides);

  // Every comparison runs the logs' sizes again, on the same cluster shapes.
  ScheduleCache schedules;
  CompareOptions compare = o.compare;
  compare.schedules = &schedules;
  Fit fit{logs, tree, fittedParameters(tree, logs, o), compare, {}, 0, 0, kEventBudget, o.progress, false, {}};
  for (const CalibrationLog& log : logs) {
    std::vector<Bytes> sizes;
    for (const auto& p : log.curve.points)
      if (p.bytes >= compare.minBytes && p.timeUs > 0) sizes.push_back(p.bytes);
    Bytes from = sizes.empty() ? 0 : std::min(kLineRateFrom, sizes[sizes.size() - std::min(sizes.size(), kLineRateSizes)]);
    fit.lineRateFrom.push_back(from);
  }
  CalibrationResult r;
  Point fileStart;
  for (const auto& p : fit.parameters) fileStart.push_back(toUnit(p, startOf(tree, p.name)));
  fit.center = fileStart;
  r.before = fit.compareAlone(fileStart);
  fit.evaluations = 1;
  fit.spentEvents = double(Fit::eventsOf(r.before));
  const double budget = std::max(kEventBudget, kMinEvaluations * fit.spentEvents);
  fit.budget = budget;

  // After a stage's search: what the curves do not determine goes back to
  // its prior, unless the figures the curves do determine lean on it
  // (taken back together, they cost the error more than a width's prior);
  // what they want past an edge of its range is said, and the edge kept.
  auto settle = [&](Point best, double bestScore) {
    const double bestError = bestScore - fit.prior(best);
    Point priors = best;
    for (std::size_t i : fit.poorlyDetermined(best, bestError)) {
      r.poorlyDetermined.push_back(fit.parameters[i].name);
      priors[i] = fit.center[i];
    }
    std::vector<Comparison> atBest = fit.compareAlone(priors);
    ++fit.evaluations;
    if (objective(atBest) - bestError <= kPriorWeight) best = priors;
    else atBest = fit.compareAlone(best), ++fit.evaluations;
    for (std::size_t i = 0; i < best.size(); ++i)
      if (fit.inStage(i))
        if (auto wanted = fit.pastEdge(best, atBest, i)) r.outsideRange.push_back(*wanted);
    return best;
  };

  // First the line rates, on the sizes they govern, from the file's values
  // (a quarter of the budget at most).
  Point best = fileStart;
  fit.lineRateStage = true;
  if (std::any_of(fit.parameters.begin(), fit.parameters.end(), [](const Parameter& p) { return p.lineRate; })) {
    const std::vector<Comparison> start = fit.compareAlone(best);
    ++fit.evaluations;
    fit.spentEvents += double(Fit::eventsOf(start));
    double score;
    std::tie(best, score) = fit.search(best, fit.score(start, best), fit.spentEvents + budget / 4);
    best = settle(best, score);
  }

  // Then the rest on every size, the line rates held: from where the first
  // stage left them, then from up to three points across every range (a
  // quarter, a half, three quarters); the best end wins (the error surface
  // has shallow local minima along ridges of coupled parameters). Each
  // search has an equal share of what is left of the budget, and a start
  // is made only when that share buys kPassesPerStart passes over the
  // parameters (a pass: two comparisons a parameter) at the comparisons'
  // cost so far: on a curve whose simulation costs much, one search from
  // the file's values gets further than four that stop halfway.
  fit.lineRateStage = false;
  std::size_t searched = 0;
  for (std::size_t i = 0; i < best.size(); ++i) searched += fit.inStage(i);
  if (searched > 0) {
    const double pass = 2.0 * double(searched);
    auto affordable = [&](double events) {
      return std::min(double(kMaxEvaluations - fit.evaluations), events / (fit.spentEvents / fit.evaluations)) / pass;
    };
    const double across[] = {0.25, 0.5, 0.75};
    const int others = int(std::size(across));
    const double left = budget - (fit.spentEvents - double(Fit::eventsOf(r.before)));
    int starts = std::clamp(int(affordable(left) / kPassesPerStart), 1, 1 + others);
    const std::vector<Comparison> first = fit.compareAlone(best);
    ++fit.evaluations;
    fit.spentEvents += double(Fit::eventsOf(first));
    const double until = fit.spentEvents + left;
    double bestScore;
    std::tie(best, bestScore) = fit.search(best, fit.score(first, best), fit.spentEvents + left / starts);
    for (int k = 0; k < others; ++k) {
      starts = std::min(others - k, int(affordable(until - fit.spentEvents) / kPassesPerStart));
      if (starts < 1 || fit.spent(until)) break;
      Point from = best;
      for (std::size_t i = 0; i < from.size(); ++i)
        if (fit.inStage(i)) from[i] = across[k];
      std::vector<Comparison> start = fit.compareAlone(from);
      double fromScore = fit.score(start, from);
      ++fit.evaluations;
      fit.spentEvents += double(Fit::eventsOf(start));
      auto [end, endScore] = fit.search(from, fromScore, fit.spentEvents + (until - fit.spentEvents) / starts);
      if (endScore < bestScore) best = end, bestScore = endScore;
    }
    best = settle(best, bestScore);
  }

  r.evaluations = fit.evaluations;
  r.assignments = fit.assignments(fit.valuesOf(best));
  for (std::size_t i = 0; i < best.size(); ++i) {
    double v = fromUnit(fit.parameters[i], best[i]);
    r.fitted[fit.parameters[i].name] = isSwitchPoint(fit.parameters[i].name) ? double(switchBytes(v)) : std::stod(number(v));
  }
  std::string measured;
  for (const CalibrationLog& log : logs) measured += (measured.empty() ? "" : ", ") + log.curve.source;
  r.yaml = calibratedYaml(tree, r, measured);
  // The figures as the written file has them, each log with its own settings.
  ClusterTree written{clusterFile, parseYamlMapping(r.yaml, clusterFile, "a cluster"), tree.library};
  for (const CalibrationLog& log : logs) {
    CompareOptions one = compare;
    one.algorithm = log.algorithm;
    r.after.push_back(compareWithMeasured(log.curve, log.op, written.load(log.sets), one));
  }
  return r;
}

std::optional<CalibrationRange> calibrationRange(const std::string& parameter) {
  for (const auto& p : parameters())
    if (p.name == parameter && p.width > 0) return CalibrationRange{p.lo, p.hi, p.source};
  return std::nullopt;
}

} // namespace collsim
