// Measured collective timings, read from benchmark logs as they are printed:
//
//  nccl-tests (all_reduce_perf and the other *_perf tools): rows of size,
//    count, type, redop, root (absent in old versions), then out-of-place
//    time_us algbw busbw #wrong and the same in place; "#" lines are
//    comments. The rank count comes from the "#  Rank N ..." lines, or else
//    from busbw / algbw (the bus factor of the operation is a function of it).
//  hccl_test (all_reduce_test ...): rows of data_size(Bytes) aveg_time(us)
//    alg_bandwidth(GB/s) check_result; the rank count is not printed.
// The devices one thread drives come from nccl-tests' "nGpus N" header or a
// "-g N" on its command line (1 when neither says): that thread launches
// each collective on each of them in turn. The library settings the run was
// made with come from "# env: NAME=VALUE ..." header lines (how a sweep
// records its launcher's NCCL_ALGO, NCCL_PROTO, ...) and from NCCL's own
// "NCCL INFO NAME set by environment to VALUE" lines (NCCL_DEBUG=INFO):
// compare and calibrate run the collective as they say (sim/cli/command.h),
// and rate it with the tuning model of the NCCL release the log names.
//
// Only the out-of-place time is kept (nccl-tests' first figure). A size
// measured more than once (logs of several runs put together) keeps the
// mean of its times; a row whose time is zero or negative is left out and
// counted. A size past kMaxMeasuredBytes, or more than kMaxMeasuredSizes
// sizes, is refused: each is a simulation, and its time must fit the clock.
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "algorithms/core/dtype.h"
#include "sim/core/units.h"
#include "sim/hccl/hccl_env.h"

namespace collsim {

struct MeasuredPoint {
  Bytes bytes;
  double timeUs;
};

struct MeasuredCurve {
  std::string source;    // the file
  std::string tool;      // "nccl-tests" or "hccl_test"
  Collective op = Collective::AllReduce;
  bool opKnown = false;  // named in the log (the tool or command line)
  DataType dtype = DataType::Float32;
  int ranks = 0;         // from "# Rank" lines; 0: the log does not list them
  double busFactor = 0;  // busbw / algbw as printed (nccl-tests), 0 if absent
  int devicesPerThread = 1;
  std::vector<EnvSetting> env;       // the run's library settings, in order, each with its file:line
  // The NCCL release the run used, as 2.x's x (0: not said), and the line
  // that says it: NCCL's own "NCCL version 2.19.3+cuda12.2" (NCCL_DEBUG=
  // INFO), nccl-tests' "nccl-library=21903", or a sweep's "# hardware: ...
  // NCCL 2.19.3" header.
  int ncclMinor = 0;
  std::string ncclVersionOrigin;
  std::vector<MeasuredPoint> points; // by size, ascending, each size once
  int nonPositiveTimes = 0;          // rows left out: their time was 0 or less
  int repeatedSizes = 0;             // rows of a size already read: averaged in
};

inline constexpr Bytes kMaxMeasuredBytes = Bytes(1) << 44; // 16 TiB
inline constexpr std::size_t kMaxMeasuredSizes = 1024;

// Throws ConfigError ("file:line: ...") on a log it cannot read.
MeasuredCurve readMeasuredCurve(const std::string& file);
MeasuredCurve parseMeasuredCurve(const std::string& text, const std::string& label);
// The rank count: listed, or the p whose bus factor for `op` is the printed
// busbw / algbw; 0 when neither says.
int ranksOf(const MeasuredCurve& curve, Collective op);

} // namespace collsim
