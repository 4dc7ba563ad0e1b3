#include "sim/workload/training.h"

#include <filesystem>

#include "sim/scenario/config_node.h"
#include "sim/scenario/input_file.h"

namespace collsim {

TrainingSpec loadTraining(const ConfigNode& node, const std::string& baseDir) {
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
  if (auto v = node.find("selector")) {
    std::filesystem::path p = v->text();
    if (p.is_relative()) p = std::filesystem::path(baseDir) / p;
    t.selectorFile = p.string();
    // A file that cannot be read is located at the key naming it; an error
    // inside the file keeps the file's own line.
    std::string text;
    try {
      text = readInputFile(t.selectorFile, "selector rules file");
    } catch (const ConfigError& e) {
      v->fail(e.what());
    }
    t.selector = loadSelectorRulesText(text, t.selectorFile);
  }
  return t;
}

} // namespace collsim
