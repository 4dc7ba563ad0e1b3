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
//   simulation: {segment: 1MiB, verify: true}
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/dtype.h"
#include "algorithms/core/schedule.h"
#include "topologies/cluster.h"

namespace collsim {

struct SimulationOptions {
  Bytes segment = Bytes(1) << 20; // fast mode by default; 4096 for packet-level fidelity
  bool verify = true;             // run the symbolic checker first
  Bytes loopBytes = 0;            // > 0: larger data runs in loops of this size (HCCL_BUFFSIZE)
};

struct Scenario {
  std::string name;
  std::string description;
  Cluster cluster;
  Collective op = Collective::AllReduce;
  std::vector<std::string> algorithms;
  std::vector<Bytes> sizes;
  DataType dtype = DataType::Float32;
  int root = 0; // broadcast and reduce
  SimulationOptions simulation;
};

// `overrides` are "key.path=value" strings from --set. Throws ConfigError.
Scenario loadScenarioFile(const std::string& file, const std::vector<std::string>& overrides);
Scenario loadScenarioText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                          const std::vector<std::string>& overrides);

// Sizes min, min*factor, ... up to max (nccl-tests -b/-e/-f).
std::vector<Bytes> geometricSizes(Bytes min, Bytes max, double factor);

} // namespace collsim
