// A measured curve against collsim's prediction of the same collective on
// a cluster: per size, measured and predicted time and the relative error,
// and the median and largest absolute error over the sizes compared. The
// two-point alpha-beta line through the smallest and largest compared size
// is reported beside it: a prediction is worth something where it beats
// that line.
#pragma once

#include <functional>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/cluster_config.h"
#include "sim/core/protocol.h"
#include "sim/run/work_estimate.h"
#include "sim/validation/measured_curve.h"

namespace collsim {

struct ComparedPoint {
  Bytes bytes;
  double measuredUs, predictedUs, lineUs;
  std::optional<Protocol> protocol; // the library's protocol for this size (none when ideal)
  int channels = 1;
  std::string algorithm; // the fastest of several algorithms compared ("" when one)
  bool hostBound = false; // the host's launches, not the devices, set the time
  double error() const { return predictedUs / measuredUs - 1; }
  double lineError() const { return lineUs / measuredUs - 1; }
};

struct Comparison {
  std::string algorithm;
  std::string library; // "ideal", "nccl", ...
  Collective op;
  int ranks;
  std::vector<ComparedPoint> points;
  double medianAbsError = 0, maxAbsError = 0;
  double lineMedianAbsError = 0, lineMaxAbsError = 0;
  std::uint64_t events = 0; // simulated, over every size and algorithm (a measure of its cost)
  // The benchmark's host launching one collective on each device its
  // thread drives (library launch x the curve's devicesPerThread).
  double hostUs = 0;
};

struct SelectorRules;
class ScheduleCache;

struct CompareOptions {
  // "library" (library_algorithms.h): per size what the cluster's library
  // would pick (under NCCL, its tuning model's algorithm and protocol); or
  // one algorithm, or several, comma-separated: the fastest per size (under
  // NCCL each with the protocol the model rates fastest for it).
  std::string algorithm = "library";
  const SelectorRules* rules = nullptr; // an HCCL library's picks under "library"
  Bytes minBytes = Bytes(64) << 10; // smaller sizes are launch-bound noise in most logs
  Bytes segment = Bytes(1) << 20;
  int channels = 1;
  int threads = 0; // sizes simulated at once (0: one per core)
  // Refused above this (sim/run/work_estimate.h: every size and algorithm
  // estimated before any runs); calibrate runs a comparison hundreds of times.
  WorkLimits limits;
  // The caller estimated this work and approved it (checkWork): it is not
  // estimated again. Estimating a comparison costs about as much as running
  // it on small clusters, and calibrate runs hundreds.
  bool approved = false;
  // Shared by comparisons that run the same sizes again (calibrate's): none, each builds its schedules.
  ScheduleCache* schedules = nullptr;
  // After each size: how many of how many are simulated.
  std::function<void(std::size_t done, std::size_t total)> progress;
};

// Throws InputError when the cluster's rank count is not the log's, or the
// algorithm cannot run there.
Comparison compareWithMeasured(const MeasuredCurve& curve, Collective op, const ClusterSetup& cluster,
                               const CompareOptions& options);
// What compareWithMeasured would simulate, estimated (memory: one run's;
// options.threads run at once), for --estimate and the limits.
WorkEstimate estimateComparison(const MeasuredCurve& curve, Collective op, const ClusterSetup& cluster,
                                const CompareOptions& options);

} // namespace collsim
