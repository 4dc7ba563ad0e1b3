// The algorithm registry: inspectable data about every (collective, algorithm).
//
// Each entry says what it computes, how to build its schedule, which rank
// counts it accepts and its closed-form alpha-beta-gamma cost, so that the
// command line can list algorithms, tests can sweep them, and a selector can
// compare them without knowing any algorithm by name.
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/schedule.h"

namespace collsim {

// Hockney model: alpha seconds per step, beta seconds per byte on a link,
// gamma seconds per byte reduced.
struct CostModel {
  double alpha = 0;
  double beta = 0;
  double gamma = 0;
};

struct AlgorithmEntry {
  Collective op;
  const char* name;     // "ring"
  const char* summary;  // one line for `collsim algorithms`
  const char* formula;  // the closed form, in words
  SchedulePtr (*build)(const CollectiveSpec& spec);
  // Seconds for p ranks and n bytes per rank under `m`.
  double (*cost)(int p, double n, const CostModel& m);
  // Empty when p ranks are supported, else the reason they are not.
  std::string (*unsupported)(int p);
};

const std::vector<AlgorithmEntry>& algorithmRegistry();
// nullptr when that collective has no such algorithm.
const AlgorithmEntry* findAlgorithm(Collective op, const std::string& name);
// Names of the algorithms for `op`, in registry order.
std::vector<std::string> algorithmNames(Collective op);

// For entries that run on any rank count.
inline std::string anyRankCount(int) { return {}; }

} // namespace collsim
