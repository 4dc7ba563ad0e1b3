// Calibration: the few physical figures of a cluster file that make
// collsim's prediction follow a measured curve (sim/validation/compare.h).
//
// Each parameter is a figure of the file with a physical range (the
// search stays inside it; calibrate.cpp cites each edge's source) and a
// prior: the file's own (sourced) value, with a stated width:
//   efficiency          hccs.efficiency, share of the intra-server line rate
//                       that carries data: 0.75-1, width 0.1
//   network_efficiency  roce.efficiency, the same between servers: 0.55-0.98
//                       (EFA on p4d to InfiniBand NDR), width 0.15
//   network_latency     roce.latency, one way on each link between servers:
//                       0.2-10 us, width a factor of 3
//   launch              library.launch, the host's cost of a collective on each
//                       device: 1-20 us, width 5 us (compare hides it behind
//                       the devices unless one thread drives several: measured_curve.h)
//   hop_scale           every protocol's per-step latencies times this: 0.5-2,
//                       width a factor of 2
//   channel_scale       every protocol's per-channel bandwidth times this:
//                       0.5-2, width a factor of 2, but one's that fills all of
//                       its share of the links (lane_efficiency 1: Simple),
//                       which efficiency fits
//   step_cost           a fixed cost per pipeline step of the fenced
//                       protocols: 0-8 us, width 2 us (only with --fit)
//   switch_points       where the library leaves each protocol but its last
//                       (PROTOCOL.max_bytes, library_model.h), 4 KiB-16 GiB
//                       in powers of two, the top meaning never: the sizes
//                       where NCCL's own choice differs from the fastest; no prior
// The search pays kPriorWeight (as much as 1 % more median error) for each
// squared width a figure moves, so a figure stays near its source unless
// the curve buys the move. A figure the fit leaves at an edge of its range
// is looked at past the edge: when the curves would buy the move, the
// result says what value they want and which sizes pull it there, and the
// file keeps the edge (a figure outside physics only hides what the model
// misses, and carries that error to other node counts). After the fit, a
// figure is poorly determined when moving it a width either way changes
// the error by less than that width costs: it is written at its prior.
//
// The default set is all of them that the cluster has but step_cost
// (network_efficiency and network_latency with several servers; launch
// when a log's thread drove several devices, else the launches hide behind
// the devices; switch_points with two protocols or more to run). Several logs are fitted
// at once (one node and two, say): each is compared on the file with its
// own rank count (servers=N) and settings, and the fit's error pools their
// sizes. The fit is a deterministic bounded pattern search on the absolute
// log errors (their median, plus half their mean and a third of the
// largest: the targets are median and largest error) plus the priors'
// cost, from the file's own values and from up to three points across the
// ranges (while the budget left buys each search three passes over the
// parameters); it ends when steps shrink below 1/64 of a range or when its
// budget of comparisons is spent: 400, or fewer for curves whose
// simulation costs more (a budget of simulated events, the same on any
// machine).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/validation/compare.h"

namespace collsim {

// One log to fit: its curve and collective, and what its run sets apart
// from the file (applied to its comparisons only, after the fit's
// figures' base): its rank count as servers=N, the NCCL release and
// settings it records; and the algorithms compared (CompareOptions::algorithm).
struct CalibrationLog {
  MeasuredCurve curve;
  Collective op = Collective::AllReduce;
  std::vector<std::string> sets;
  std::string algorithm = "library";
};

// A figure the logs want past an edge of its physical range: the file
// keeps the edge. `pulledBy`: the sizes whose error shrinks most past it
// ("4MiB -16.5% -> -9.1%", with the log's file when several are fitted).
struct OutsideRange {
  std::string name;
  double kept = 0, wanted = 0, lo = 0, hi = 0;
  std::string source;
  std::vector<std::string> pulledBy;
};

struct CalibrationResult {
  std::map<std::string, double> fitted;  // parameter -> value (us for launch)
  std::vector<std::string> assignments;  // the same as --set assignments on the cluster file
  std::string yaml;                      // the calibrated cluster file
  std::vector<Comparison> before, after; // per log, in the order given
  int evaluations = 0;
  // Fitted parameters the curves hardly constrain: written at their priors
  // (the file's values; see above).
  std::vector<std::string> poorlyDetermined;
  std::vector<OutsideRange> outsideRange;
};

struct CalibrateOptions {
  std::vector<std::string> fit; // empty: the default set
  CompareOptions compare;       // its algorithm is each log's own
  // Called after each comparison pair: the share of the fit done (of its
  // event budget, or of the priors' check) and the stage.
  std::function<void(double share, const std::string& stage)> progress;
};

// A parameter's physical range and where it comes from (switch points: none).
struct CalibrationRange {
  double lo = 0, hi = 0;
  std::string source;
};
std::optional<CalibrationRange> calibrationRange(const std::string& parameter);

std::vector<std::string> calibrationParameterNames();

// `clusterFile` with `overrides` applied is the starting point (and what is
// written, with the fitted figures). Throws InputError for an unknown
// parameter or one the cluster has not, or a log the file cannot be shaped to.
CalibrationResult calibrate(const std::vector<CalibrationLog>& logs, const std::string& clusterFile,
                            const std::vector<std::string>& overrides, const CalibrateOptions& options);
inline CalibrationResult calibrate(const MeasuredCurve& curve, Collective op, const std::string& clusterFile,
                                   const std::vector<std::string>& overrides, const CalibrateOptions& options) {
  return calibrate({CalibrationLog{curve, op, {}, options.compare.algorithm}}, clusterFile, overrides, options);
}
// What calibrate would simulate: one comparison of every log, times the
// comparisons its budget allows (for --estimate and the limits).
WorkEstimate estimateCalibration(const std::vector<CalibrationLog>& logs, const std::string& clusterFile,
                                 const std::vector<std::string>& overrides, const CalibrateOptions& options);

} // namespace collsim
