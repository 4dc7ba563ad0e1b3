#include "sim/config/training_config.h"

#include <algorithm>

#include "sim/config/config_node.h"
#include "sim/config/model_config.h"
#include "sim/core/text_list.h"

namespace collsim {

static ParallelLayout loadParallel(const ConfigNode& node, int accumulation) {
  node.allowDeclared(InputKind::Scenario, "training.parallel");
  ParallelLayout l;
  l.dp = 0;
  if (auto v = node.find("tp")) l.tp = int(v->integer(1, 1 << 16));
  if (auto v = node.find("pp")) l.pp = int(v->integer(1, 1 << 16));
  if (auto v = node.find("cp")) l.cp = int(v->integer(1, 1 << 16));
  if (auto v = node.find("dp")) l.dp = int(v->integer(1, 1 << 24));
  if (auto v = node.find("ep")) l.ep = int(v->integer(1, 1 << 16));
  if (auto v = node.find("expert_imbalance")) {
    l.expertImbalance = v->number();
    if (!(l.expertImbalance >= 1 && l.expertImbalance <= 100))
      v->fail("the busiest device's expert work over the mean: a number from 1 (even) to 100");
  }
  if (auto v = node.find("zero")) l.zero = int(v->integer(0, 3));
  l.microBatches = accumulation;
  if (auto v = node.find("micro_batches")) {
    if (accumulation > 1) v->fail("give micro_batches here or accumulation, not both (they are the same count)");
    l.microBatches = int(v->integer(1, 1 << 16));
  }
  if (auto v = node.find("schedule")) {
    std::string kind = v->choice({"gpipe", "1f1b", "interleaved"});
    l.schedule = kind == "gpipe" ? PipelineKind::GPipe : kind == "1f1b" ? PipelineKind::OneFOneB : PipelineKind::Interleaved;
    if (l.schedule == PipelineKind::Interleaved) l.virtualStages = 2;
  }
  if (auto v = node.find("virtual_stages")) {
    if (l.schedule != PipelineKind::Interleaved) v->fail("virtual_stages are the interleaved schedule's (schedule: interleaved)");
    l.virtualStages = int(v->integer(2, 1 << 10));
  }
  if (auto v = node.find("sequence_parallel")) l.sequenceParallel = v->boolean();
  if (auto v = node.find("stage_layers")) { // blocks per stage, first to last (checked against the model with the layout)
    if (!v->isSequence() || v->items().empty()) v->fail("expected the blocks of each stage, first to last: [7, 8, 8, 7]");
    for (const ConfigNode& c : v->items()) l.stageLayers.push_back(int(c.integer(0, 1 << 20)));
  }
  if (auto v = node.find("order")) {
    // Innermost first, e.g. tp-cp-dp-pp; ep may appear (EP groups are always
    // consecutive ranks of the DP group), cp may be left out (it then
    // follows tp, as in Megatron-LM's default).
    std::string kept;
    for (const std::string& d : splitList(v->text(), '-')) {
      if (d != "tp" && d != "cp" && d != "dp" && d != "pp" && d != "ep")
        v->fail("order names tp, dp and pp (and cp, ep), innermost first: tp-cp-dp-pp");
      if (d != "ep") kept += d[0];
    }
    if (kept.find('c') == std::string::npos) kept.insert(kept.find('t') == std::string::npos ? 0 : kept.find('t') + 1, "c");
    std::string sorted = kept;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != "cdpt") v->fail("order names each of tp, dp and pp once (and cp), innermost first: tp-cp-dp-pp");
    l.order = {kept[0], kept[1], kept[2], kept[3]};
  }
  return l;
}

// `framework:` and `overlap:` (training_config.h).
static void loadOverlaps(const ConfigNode& node, TrainingSpec& t) {
  if (auto v = node.find("framework")) {
    std::string f = v->choice({"ddp", "fsdp", "megatron", "deepspeed"});
    t.framework = f == "ddp" ? Framework::Ddp : f == "fsdp" ? Framework::Fsdp : f == "megatron" ? Framework::Megatron
                                                                                              : Framework::DeepSpeed;
  }
  const int zero = t.parallel ? t.parallel->zero : 0;
  t.overlap = t.framework == Framework::Ddp || t.framework == Framework::Fsdp ||
              (t.framework == Framework::DeepSpeed && zero == 3);
  t.tpWgradOverlap = t.framework == Framework::Megatron;
  // PyTorch DDP copies each gradient into its bucket and back
  // (gradient_as_bucket_view defaults to off, pytorch/pytorch#41954);
  // Megatron-Core's DDP and FSDP keep the gradients in the flat buffers
  // they reduce, and gradients sharded by ZeRO 2-3 are never DDP's.
  t.bucketCopy = t.framework == Framework::Ddp && zero < 2;
  auto v = node.find("overlap");
  if (!v) return;
  if (v->isScalar()) {
    t.overlap = v->boolean();
    return;
  }
  v->allowDeclared(InputKind::Scenario, "training.overlap");
  if (auto s = v->find("grad_reduce")) t.overlap = s->boolean();
  if (auto s = v->find("param_gather")) {
    t.paramGatherOverlap = s->boolean();
    if (t.paramGatherOverlap && t.parallel && zero != 1 && zero != 2)
      s->fail("param_gather overlaps a distributed optimizer's gathers of the updated weights: zero 1 or 2 (zero " +
              std::to_string(zero) + " has " + (zero == 3 ? "its own, before each layer" : "none") + ")");
  }
  if (auto s = v->find("param_prefetch")) {
    t.paramPrefetch = s->boolean();
    if (t.parallel && zero != 3)
      s->fail("param_prefetch says when ZeRO 3 gathers each layer's weights: zero 3 (zero " + std::to_string(zero) +
              " keeps the weights whole)");
  }
  if (auto s = v->find("tp_comm")) {
    t.tpCommOverlap = s->boolean();
    if (t.tpCommOverlap && t.parallel && !t.parallel->sequenceParallel)
      s->fail("tp_comm pipelines sequence parallelism's AllGathers and ReduceScatters with the GEMMs: it needs "
              "parallel.sequence_parallel (as Megatron-LM's --tp-comm-overlap does)");
  }
  if (auto s = v->find("tp_wgrad")) t.tpWgradOverlap = s->boolean();
}

TrainingSpec loadTraining(const ConfigNode& node) {
  node.allowDeclared(InputKind::Scenario, "training");
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
  if (auto v = node.find("parallel")) {
    t.parallel = loadParallel(*v, t.accumulation);
    t.accumulation = t.parallel->microBatches;
  }
  loadOverlaps(node, t);
  if (auto v = node.find("bucket_copy")) t.bucketCopy = v->boolean();
  return t;
}

} // namespace collsim
