// A training job as a scenario describes it (the `training:` section):
//
//   training:
//     model: ../configs/models/bert-large.yaml  # a path or an inline model
//     micro_batch: 8          # samples per device per micro-batch (default: the model's)
//     accumulation: 4         # micro-batches per optimizer step; only the last communicates
//     bucket: 64MiB           # gradient bucket (PyTorch DDP bucket_cap_mb: a framework setting)
//     pipeline: 2             # buckets whose AllReduce may be in flight at once (1: one at a time)
//     overlap: true           # AllReduce a bucket as soon as it is ready, during backward
//     selector: ../configs/selector/hccl-910b.yaml  # rules for `algo: auto`
//
// The algorithm of every bucket's AllReduce is the scenario's `algo`
// (`auto`: the selector's pick for each bucket's size).
#pragma once

#include <optional>
#include <string>

#include "sim/selector/rules.h"
#include "sim/workload/model.h"

namespace collsim {

class ConfigNode;

struct TrainingSpec {
  ModelSpec model;
  int accumulation = 1;
  Bytes bucket = 25'000'000; // PyTorch DDP's default bucket_cap_mb = 25
  int pipeline = 1;
  bool overlap = true;
  std::optional<SelectorRules> selector;
  std::string selectorFile;
};

// `baseDir` resolves relative paths (the scenario file's folder).
TrainingSpec loadTraining(const ConfigNode& node, const std::string& baseDir);

} // namespace collsim
