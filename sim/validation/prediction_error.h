// How far collsim's step time may be from a measured one, as one standard
// deviation of the log ratio: what a plan's band and its ties say
// (sim/report/plan_report.h).
//
// Uncalibrated, from the published runs and tables of docs/validation.md
// (151 rows; tests/published_runs_test.cpp recomputes both from them and
// holds these figures to within half a point):
//   kUncalibratedError     the root mean square of log(predicted /
//                          published) over every row: 0.17 (collsim errs
//                          fast, by a bias of its own on each table)
//   kBetweenLayoutsError   the same about each table's own mean: 0.093,
//                          what tells two layouts of one run apart (a
//                          common bias shifts them alike)
// Calibrated (a device file's calibration.error, compute_calibration.h):
// that error for both, since the calibration took the bias out.
#pragma once

#include "topologies/cluster.h"

namespace collsim {

inline constexpr double kUncalibratedError = 0.17;
inline constexpr double kBetweenLayoutsError = 0.093;

struct PredictionError {
  double absolute = kUncalibratedError;   // of one step time
  double betweenLayouts = kBetweenLayoutsError;
  int calibratedRuns = 0;                 // 0: uncalibrated
};

inline PredictionError predictionError(const DeviceModel& d) {
  if (d.calibration.runs == 0) return {};
  return {d.calibration.error, d.calibration.error, d.calibration.runs};
}

} // namespace collsim
