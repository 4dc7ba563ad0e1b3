// Calibration: the few physical figures of a cluster file that make
// collsim's prediction follow a measured curve (sim/validation/compare.h).
//
// Each parameter is a figure of the file with physical bounds:
//   efficiency          hccs.efficiency, share of the intra-server line rate that carries data, 0.2-1
//   network_efficiency  roce.efficiency, the same between servers, 0.2-1
//   network_latency     roce.latency, one way on each link between servers, 0.5-50 us
//   launch              library.launch, the host's cost of a collective on each
//                       device, 0-500 us (compare hides it behind the devices
//                       unless one thread drives several: measured_curve.h)
//   hop_scale           every protocol's per-step latencies times this, 0.1-10
//   channel_scale       every protocol's per-channel bandwidth times this, 0.25-4,
//                       but one's that fills all of its share of the links
//                       (lane_efficiency 1: Simple), which efficiency fits
//   switch_points       where the library leaves each protocol but its last
//                       (PROTOCOL.max_bytes, library_model.h), 4 KiB-16 GiB
//                       in powers of two, the top meaning never: the sizes
//                       where NCCL's own choice differs from the fastest
// (no bandwidth above line rate, no negative latency), and a prior: the
// file's own (sourced) value, with a stated width (calibrate.cpp: a
// link's efficiency 0.1, the network's 0.15, its latency a factor of 3, a
// launch 5 us, per-hop latencies and channel rates a factor of 2; none for
// the switch points). The search pays kPriorWeight (as much as 1 % more
// median error) for each squared width a figure moves, so a figure stays
// physical and near its source unless the curve buys the move: a fit that
// extrapolates to other node counts instead of bending one curve's figures.
// After the fit, a parameter is reported poorly determined when moving it
// a width either way changes the error by less than that width costs. The
// default set is
// all of them that the cluster has (network_efficiency and network_latency
// with several servers: a preset's network is its least known part, EFA's
// latency ten times InfiniBand's; switch_points with two protocols or more
// to run). The fit is a deterministic bounded pattern search on the
// absolute log errors (their median, plus half their mean and a third of
// the largest: the targets are median and largest error) plus the priors' cost, from the file's own
// values and from up to three points across the ranges (while the budget
// left buys each search three passes over the parameters); it ends when steps
// shrink below 1/64 of a range or when its budget of comparisons is spent:
// 400, or fewer for curves whose simulation costs more (a budget of
// simulated events, the same on any machine).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/validation/compare.h"

namespace collsim {

struct CalibrationResult {
  std::map<std::string, double> fitted;  // parameter -> value (us for launch)
  std::vector<std::string> assignments;  // the same as --set assignments on the cluster file
  std::string yaml;                      // the calibrated cluster file
  Comparison before, after;
  int evaluations = 0;
  // Fitted parameters the curve hardly constrains: their priors hold them
  // near the file's values (see above).
  std::vector<std::string> poorlyDetermined;
};

struct CalibrateOptions {
  std::vector<std::string> fit; // empty: the default set
  CompareOptions compare;
  // Called after each comparison pair: the share of the fit done (of its
  // event budget, or of the priors' check) and the stage.
  std::function<void(double share, const std::string& stage)> progress;
};

std::vector<std::string> calibrationParameterNames();

// `clusterFile` with `overrides` applied is the starting point. Throws
// InputError for an unknown parameter or one the cluster has not.
CalibrationResult calibrate(const MeasuredCurve& curve, Collective op, const std::string& clusterFile,
                            const std::vector<std::string>& overrides, const CalibrateOptions& options);
// What calibrate would simulate: one comparison's estimate times the
// comparisons its budget allows (for --estimate and the limits).
WorkEstimate estimateCalibration(const MeasuredCurve& curve, Collective op, const std::string& clusterFile,
                                 const std::vector<std::string>& overrides, const CalibrateOptions& options);

} // namespace collsim
