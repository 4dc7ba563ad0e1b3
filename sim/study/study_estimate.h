// The work of a whole study, from a sample of its points.
//
// Reading one point of a sweep (its YAML, its cluster) costs about as much
// as estimating it, and a 100,000-point sweep takes seconds to read: an
// estimate that read every point would cost most of the run. Instead the
// points are estimated in rounds of 1, 2, 4, ... points, each round at the
// middles of as many equal strata of the study's order (a stratified sample:
// its mean times the study's size estimates the sum), until a round covers
// every point (exact) or the points read so far pass a budget of about a
// second. The last round completed is the estimate.
#pragma once

#include "sim/run/work_estimate.h"
#include "sim/scenario/scenario.h"

namespace collsim {

// A study of at most this many points is estimated point by point, exactly.
inline constexpr std::size_t kStudySamplePoints = 256;

// Events and seconds summed over the study's points (extrapolated from the
// sample), memory and simulated time the largest sampled. With `stop`,
// returns (partial) as soon as a round passes its limits.
// `traced`: under --trace (no collective folds).
WorkEstimate estimateStudy(const StudyReader& study, const WorkLimits* stop = nullptr, bool traced = false);

// The point indices of round `round` for a study of `points` points: the
// middles of 2^round equal strata, or every point once that many reach it.
std::vector<std::size_t> studySampleRound(std::size_t points, int round);

} // namespace collsim
