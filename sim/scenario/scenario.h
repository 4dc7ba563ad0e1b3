// A scenario: the study `collsim run` performs.
//
//   name: seed-8card-ring
//   description: free text
//   cluster: ../configs/clusters/hccs-ring-8.yaml   # a path (relative to this file) or an inline mapping
//   op: allreduce
//   algo: ring                  # or a list of algorithms
//   sizes: [64KiB, 1MiB]        # or {min: 1KiB, max: 1GiB, factor: 2}
//   dtype: float32
//   root: 0                     # broadcast and reduce
//   simulation: {fidelity: fast, segment: 1MiB, verify: true, seed: 1, channels: 1, symmetry: on}   # fidelity: fast | packet
//
// A training study has a `training:` section (sim/workload/training.h)
// instead of `op` and `sizes`; its `algo` runs every gradient bucket
// (`auto`: the selector picks per bucket). A study file may also have
// `variants` and a `sweep` (study.h): it then stands for several scenarios,
// one per point. A variant's `reference:` holds published figures to set
// beside the simulated ones, with the top-level
//   reference: {source: "...", tolerance: 0.2, notes: {step_ms: "why"}}
// A training run's `measured:` (the scenario's, or a variant's, which wins)
// is what the run measured of itself (sim/workload/measurement.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/core/dtype.h"
#include "algorithms/core/schedule.h"
#include "sim/network/network.h"
#include "sim/run/library_model.h"
#include "sim/selector/rules.h"
#include "sim/workload/layout_search.h"
#include "sim/workload/measurement.h"
#include "sim/workload/training.h"
#include "topologies/cluster.h"

namespace collsim {

struct SimulationOptions {
  Fidelity fidelity = Fidelity::Fast; // packet: MTU packets, ECN, PFC, DCQCN (sim/network/packet/)
  Bytes segment = Bytes(1) << 20;     // the fast model's segment
  bool verify = true;                 // run the symbolic checker first
  Bytes loopBytes = 0;                // > 0: larger data runs in loops of this size (HCCL_BUFFSIZE)
  std::uint64_t seed = 1;             // jitter draws (--seed overrides it)
  int channels = 1;                   // collectives as this many channels (algorithms/core/channels.h)
  bool symmetry = true;               // a training step's alike devices (replicas, TP positions) simulated once (replica_symmetry.h)
};

// Where published figures come from and how close counts as agreeing.
struct ReferenceInfo {
  std::string source;
  double tolerance = 0.2; // relative
  std::map<std::string, std::string> notes; // per figure: why the model differs
};

struct Scenario {
  std::string name;
  std::string description;
  Cluster cluster;
  RoceModel roce; // the cluster's NICs and switches (its `roce:` section)
  LibraryModel library = {}; // the cluster's collective library (its `library:` section)
  Collective op = Collective::AllReduce;
  std::vector<std::string> algorithms;
  std::vector<Bytes> sizes;
  DataType dtype = DataType::Float32;
  int root = 0; // broadcast and reduce
  SimulationOptions simulation;

  std::optional<TrainingSpec> training;
  // `plan:`: the layouts `collsim plan` searches (with `training:`).
  std::optional<PlanSpace> plan;
  // A training study's selector rules (`training.selector`), for `algo: auto`.
  std::optional<SelectorRules> selector;
  // Its place in a study: the variant, and the swept keys' values.
  std::string variant;
  std::vector<std::pair<std::string, std::string>> sweepValues;
  std::map<std::string, double> reference; // figure key -> published value
  ReferenceInfo referenceInfo;
  // A training run's measured figure (`measured:`, the variant's or the
  // scenario's): set beside the prediction, and what calibrate fits to.
  std::optional<Measurement> measured;
  // A study point whose keys could not be read: why (the point is reported
  // as failed; the study fails as a whole only if every point does).
  std::string loadError;
  // The study as it ran, to rerun it: its YAML with files inlined and every
  // --set applied (the same text for all its points).
  std::shared_ptr<const std::string> resolvedYaml;
};

// A study's points, read one at a time when asked for: reading all of a
// 100,000-point sweep takes seconds, so an estimate reads a sample of them
// and only the run reads every one. `overrides` are "key.path=value" strings
// from --set, applied to every point after the study's own assignments.
// Not for use from several threads at once.
class StudyReader {
 public:
  // Reads the study's root and expands its variants and sweep; throws
  // ConfigError.
  StudyReader(const std::string& yaml, const std::string& label, const std::string& baseDir,
              const std::vector<std::string>& overrides);
  std::size_t size() const;
  // Point i. One that cannot be read carries loadError (in a one-point
  // study: throws ConfigError).
  Scenario point(std::size_t i) const;
  // Every point; throws the first error when every point fails.
  std::vector<Scenario> all() const;
  // Called on every point read without an error (HCCL_* variables).
  void onEachPoint(std::function<void(Scenario&)> loaded);
  // The study with files inlined and every --set applied.
  const std::string& resolvedYaml() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};
StudyReader openStudyFile(const std::string& file, const std::vector<std::string>& overrides);

// Every point at once. Throws ConfigError.
std::vector<Scenario> loadStudyFile(const std::string& file, const std::vector<std::string>& overrides);
std::vector<Scenario> loadStudyText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                                    const std::vector<std::string>& overrides);
// The same for a file that must be a single scenario.
Scenario loadScenarioFile(const std::string& file, const std::vector<std::string>& overrides);
Scenario loadScenarioText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                          const std::vector<std::string>& overrides);

// Sizes min, min*factor, ... up to max (nccl-tests -b/-e/-f).
std::vector<Bytes> geometricSizes(Bytes min, Bytes max, double factor);
// How many that is, computed without building the list (a factor of
// 1.0000001 would make 10^8 of them): checked against kMaxSizes first.
double geometricCount(double min, double max, double factor);
inline constexpr double kMaxSizes = 10000;

} // namespace collsim
