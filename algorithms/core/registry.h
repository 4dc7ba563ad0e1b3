// The algorithm registry: inspectable data about every (collective, algorithm).
//
// Each entry says what it computes, how to build its schedule, which rank
// counts it accepts and its closed-form alpha-beta-gamma cost, so that the
// command line can list algorithms, tests can sweep them, and a selector can
// compare them without knowing any algorithm by name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/group_view.h"
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
  std::string name;    // "ring"
  std::string summary; // one line for `collsim algorithms`
  std::string formula; // the closed form, in words
  // The schedule on a group of ranks over a view of the buffer; `spec`
  // describes the whole collective (root as a local index of the group,
  // server layout). Flat algorithms compose into hierarchical ones this way.
  std::function<SchedulePtr(const GroupView& group, const CollectiveSpec& spec)> build;
  // Seconds for p ranks and n bytes per rank under `m`.
  std::function<double(int p, double n, const CostModel& m)> cost;
  // Empty when the collective can run, else the reason it cannot.
  std::function<std::string(const CollectiveSpec& spec)> unsupported;
  // Pipelines the buffer in pieces of its own (spec.chunkBytes) instead of
  // running in a library's chunk loops (algorithms/core/chunk_loops.h).
  bool pipelinesChunks = false;
  // Needs a server switch that reduces and multicasts (nvls, or a hierarchy
  // with it), or a fabric switch that does (sharp).
  bool needsReducingSwitch = false;
  bool needsReducingFabric = false;
  bool reducesInNetwork() const { return needsReducingSwitch || needsReducingFabric; }
  // For an algorithm on several streams, the same collective on one, moving
  // its ranges whole: what a phase of a hierarchical algorithm runs (phases
  // are chained as one stream; hierpipe pipelines its slices itself).
  // Empty: it cannot be a phase.
  std::function<SchedulePtr(const GroupView& group, const CollectiveSpec& spec)> buildAsPhase = nullptr;
  // The phase as consecutive stages that a pipeline over slices may overlap
  // (core/pipeline.h): a tree AllReduce's reduce up, then its broadcast down,
  // so that one slice climbs while the one before comes down. Run in order
  // they are the phase. Empty: the phase is one stage.
  std::vector<std::function<SchedulePtr(const GroupView& group, const CollectiveSpec& spec)>> phaseStages = {};
};

// The schedule of `entry` over every rank of `spec` and its whole buffer.
SchedulePtr buildSchedule(const AlgorithmEntry& entry, const CollectiveSpec& spec);

const std::vector<AlgorithmEntry>& algorithmRegistry();
// Algorithms that need a switch which reduces and multicasts (nvls, sharp):
// found by name, never part of "all" (elsewhere they would run as plain meshes).
const std::vector<AlgorithmEntry>& inNetworkRegistry();
// The flat algorithm `name` for `op`, or a hierarchical one named
// "hier:INTRA+INTER" (also "hierpipe:..." and HCCL's
// "level0:INTRA;level1:INTER"); nothing when there is no such algorithm.
std::optional<AlgorithmEntry> findAlgorithm(Collective op, const std::string& name);
// Names a source outside the registry defines, by prefix: "file:" for
// schedule files (sim/config/schedule_file.h registers their reader when a
// command line starts). findAlgorithm asks the source whose prefix a name
// starts with, which may throw for a file it cannot read. Register before
// any lookup runs on another thread.
using AlgorithmSource = std::function<std::optional<AlgorithmEntry>(Collective op, const std::string& name)>;
void registerAlgorithmSource(const std::string& prefix, AlgorithmSource source);

// Names of the flat algorithms for `op`, in registry order.
std::vector<std::string> algorithmNames(Collective op);

// For entries that run on any rank count.
inline std::string anyRankCount(const CollectiveSpec&) { return {}; }

} // namespace collsim
