// A study file expands into points: each of its `variants` (named sets of
// keys, e.g. before/after tuning) times every combination of its `sweep`
// (any scenario key, by dotted path, over a list or a range):
//
//   variants:
//     - {name: before, set: {training.bucket: 16MiB}, reference: {step_ms: 33.8}}
//     - {name: after,  set: {training.bucket: 64MiB, training.accumulation: 4}}
//   sweep:
//     cluster.servers: {from: 1, to: 8, step: 1}     # integers
//     training.bucket: {min: 16MiB, max: 256MiB, factor: 2}
//     algo: [ring, rhd]
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/config/config_node.h"

namespace collsim {

// One key a point sets: the dotted key, its value as written, and where
// the study says so ("study.yaml:6:3"), for errors the value causes later.
struct Assignment {
  std::string key;
  YAML::Node value;
  std::string where;
};

struct StudyPoint {
  std::string variant; // empty without variants
  // In the order they are applied: the variant's keys, then the sweep's in
  // the file's order.
  std::vector<Assignment> assignments;
  std::vector<std::pair<std::string, std::string>> sweepValues; // the sweep's part, for tables
  std::optional<ConfigNode> reference; // the variant's reference values, if any
  std::optional<ConfigNode> measured;  // the variant's measured figure, if any
};

// A study's points, each made when asked for: every variant times every
// combination of the sweep's values (the last key varies fastest). A sweep
// of 100,000 points made at once took most of a second to estimate a sample of.
class StudyPoints {
public:
  std::size_t size() const;
  StudyPoint operator[](std::size_t i) const;
  // Every key a variant or the sweep sets, with where and by what ("sweep",
  // "variant 'after'"): a --set on one of them would contradict the rows.
  struct VariedKey {
    std::string key, where, by;
  };
  std::vector<VariedKey> variedKeys() const;

private:
  friend StudyPoints expandStudy(const ConfigNode& root, std::size_t maxPoints);
  struct Axis {
    std::string key;
    std::vector<YAML::Node> values;
    std::string where;
  };
  std::vector<StudyPoint> variants_; // one without a name when there are none
  std::vector<Axis> axes_;
};

// Reads `variants` and `sweep` of a study root (which it does not change).
// Without either, one point with nothing to assign. Throws ConfigError.
StudyPoints expandStudy(const ConfigNode& root, std::size_t maxPoints = 100000);

} // namespace collsim
