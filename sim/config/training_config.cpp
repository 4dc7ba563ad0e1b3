#include "sim/config/training_config.h"

#include "sim/config/config_node.h"
#include "sim/config/model_config.h"

namespace collsim {

TrainingSpec loadTraining(const ConfigNode& node) {
  node.allowOnly({"model", "micro_batch", "accumulation", "bucket", "pipeline", "overlap", "selector"});
  TrainingSpec t;
  ConfigNode model = node.at("model");
  if (!model.isMap()) model.fail("expected a model mapping or a path to a model file");
  t.model = loadModel(model);
  if (auto v = node.find("micro_batch")) t.model.microBatch = int(v->integer(1, 1 << 20));
  if (auto v = node.find("accumulation")) t.accumulation = int(v->integer(1, 1 << 16));
  if (auto v = node.find("bucket")) {
    t.bucket = v->bytes();
    if (t.bucket == 0) v->fail("a bucket holds at least one gradient element");
  }
  if (auto v = node.find("pipeline")) t.pipeline = int(v->integer(1, 1 << 16));
  if (auto v = node.find("overlap")) t.overlap = v->boolean();
  return t;
}

} // namespace collsim
