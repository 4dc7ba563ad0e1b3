#include "sim/config/model_config.h"

#include <cmath>

#include "sim/config/config_node.h"
#include "sim/config/device_presets.h"
#include "sim/workload/transformer_shape.h"

namespace collsim {

namespace {

// Layers without a `compute` share split what the others leave in
// proportion to their parameters (dense layers: FLOPs ~ 2 x parameters).
void shareCompute(std::vector<ModelLayer>& layers, const std::vector<bool>& given, const ConfigNode& at) {
  double fixed = 0;
  std::uint64_t freeParams = 0;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (given[i]) fixed += layers[i].computeShare;
    else freeParams += layers[i].parameters;
  }
  if (fixed > 1 + 1e-9) at.fail("the layers' compute shares add up to more than 1");
  if (freeParams == 0 && std::abs(fixed - 1) > 1e-6)
    at.fail("the layers' compute shares must add up to 1 when every layer gives one");
  for (std::size_t i = 0; i < layers.size(); ++i)
    if (!given[i]) layers[i].computeShare = (1 - fixed) * double(layers[i].parameters) / double(freeParams);
}

std::uint32_t bytesPerParameter(const ConfigNode& n) { return std::uint32_t(n.integer(0, 64)); }

TransformerShape readShape(const ConfigNode& t) {
  t.allowDeclared(InputKind::Scenario, "training.model.transformer");
  TransformerShape s;
  s.layers = int(t.at("layers").integer(1, 100000));
  s.hidden = std::uint64_t(t.at("hidden").integer(1, 1 << 20));
  s.heads = int(t.at("heads").integer(1, 1 << 16));
  if (s.hidden % std::uint64_t(s.heads) != 0) t.at("heads").fail("hidden must be a multiple of heads");
  if (auto k = t.find("kv_heads")) {
    s.kvHeads = int(k->integer(1, s.heads));
    if (s.heads % s.kvHeads != 0) k->fail("kv_heads must divide heads (grouped-query attention)");
  }
  s.ffn = std::uint64_t(t.at("ffn").integer(1, 1 << 24));
  s.vocabulary = std::uint64_t(t.at("vocabulary").integer(1, 1 << 24));
  s.sequence = std::uint64_t(t.at("sequence").integer(1, 1 << 24));
  if (auto v = t.find("gated_ffn")) s.gatedFfn = v->boolean();
  if (auto v = t.find("tied_embeddings")) s.tiedEmbeddings = v->boolean();
  if (auto v = t.find("experts")) s.experts = int(v->integer(1, 1 << 16));
  if (auto v = t.find("top_k")) s.topK = int(v->integer(1, s.experts));
  if (auto v = t.find("recomputation")) {
    std::string r = v->choice({"none", "selective", "full"});
    s.recomputation = r == "none" ? Recomputation::None : r == "selective" ? Recomputation::Selective : Recomputation::Full;
  }
  if (auto v = t.find("attention")) { // flash: the device's best kernel; or a kernel by name
    std::vector<std::string> options = {"flash", "standard"};
    options.insert(options.end(), attentionKernelNames().begin(), attentionKernelNames().end());
    std::string a = v->choice(options);
    s.flashAttention = a != "standard";
    s.attentionKernel = (a == "flash" || a == "standard") ? "" : a;
  }
  if (auto v = t.find("dropout")) s.dropout = v->boolean();
  return s;
}

void readPrecision(const ConfigNode& node, ModelSpec& m) {
  auto p = node.find("precision");
  if (!p) return;
  p->allowDeclared(InputKind::Scenario, "training.model.precision");
  if (auto v = p->find("weights")) m.precision.weights = bytesPerParameter(*v);
  if (auto v = p->find("gradients")) m.precision.gradients = bytesPerParameter(*v);
  if (auto v = p->find("master_weights")) m.precision.masterWeights = bytesPerParameter(*v);
  if (auto v = p->find("optimizer_state")) m.precision.optimizerState = bytesPerParameter(*v);
  if (auto v = p->find("accumulation")) m.precision.accumulation = bytesPerParameter(*v);
  if (m.precision.gradients != 2 && m.precision.gradients != 4 && m.precision.gradients != 8)
    p->at("gradients").fail("gradients are 2 (fp16/bf16), 4 (fp32) or 8 (fp64) bytes per parameter");
}

void readBackwardFactor(const ConfigNode& compute, ModelSpec& m) {
  if (auto v = compute.find("backward_factor")) {
    m.backwardFactor = v->number();
    if (m.backwardFactor < 0) v->fail("the backward factor cannot be negative");
  }
}

void readUtilization(const ConfigNode& u, ModelSpec& m) {
  m.utilization = u.number();
  if (m.utilization <= 0 || m.utilization > 1) u.fail("utilization is the achieved fraction of peak, in (0, 1]");
}

// The layers, compute shares, FLOPs and activations that `shape` implies.
void fromShape(const TransformerShape& shape, ModelSpec& m) {
  double total = shape.flopsPerSample();
  m.layers.push_back({"embeddings", shape.embeddingParameters(), 0.0});
  for (int i = 0; i < shape.layers; ++i)
    m.layers.push_back({"block." + std::to_string(i), shape.blockParameters(), shape.blockFlopsPerSample() / total});
  m.layers.push_back({"final norm and head", shape.headParameters(), shape.headFlopsPerSample() / total});
  m.flopsPerSample = total;
  m.activationsPerSample = shape.activationsPerSample();
  m.transformer = shape;
}

} // namespace

ModelSpec loadModel(const ConfigNode& node) {
  node.allowDeclared(InputKind::Scenario, "training.model");
  ModelSpec m;
  m.name = node.has("name") ? node.at("name").text() : "model";
  if (auto d = node.find("description")) m.description = d->text();
  readPrecision(node, m);
  if (auto v = node.find("micro_batch")) m.microBatch = int(v->integer(1, 1 << 20));

  if (auto t = node.find("transformer")) {
    for (const char* derived : {"layers", "activations_per_sample"})
      if (auto n = node.find(derived)) n->fail(std::string(derived) + " follows from transformer: give one or the other");
    fromShape(readShape(*t), m);
    // Timed by its operations on the device (layer_compute.h), unless the
    // file gives one utilization for all of them.
    if (auto c = node.find("compute")) {
      c->allowDeclared(InputKind::Scenario, "training.model.compute");
      if (c->has("backward_factor") && !c->has("utilization"))
        c->at("backward_factor").fail("backward_factor goes with utilization; the operation model derives backward");
      readBackwardFactor(*c, m);
      readUtilization(c->at("utilization"), m);
    }
    return m;
  }

  ConfigNode layers = node.at("layers");
  if (!layers.isSequence() || layers.items().empty()) layers.fail("expected a list of layers");
  std::vector<bool> shareGiven;
  for (const ConfigNode& l : layers.items()) {
    l.allowDeclared(InputKind::Scenario, "training.model.layers[]");
    ModelLayer layer;
    layer.name = l.at("name").text();
    layer.parameters = std::uint64_t(std::llround(l.at("parameters").count()));
    bool given = l.has("compute");
    if (given) {
      layer.computeShare = l.at("compute").number();
      if (layer.computeShare < 0) l.at("compute").fail("a compute share is a fraction between 0 and 1");
    }
    int repeat = l.has("repeat") ? int(l.at("repeat").integer(1, 100000)) : 1;
    if (given) layer.computeShare /= repeat; // the share is the whole group's
    for (int i = 0; i < repeat; ++i) {
      m.layers.push_back(layer);
      if (repeat > 1) m.layers.back().name += "." + std::to_string(i);
      shareGiven.push_back(given);
    }
  }
  if (m.parameters() == 0) layers.fail("the model has no parameters");
  shareCompute(m.layers, shareGiven, layers);

  if (auto v = node.find("activations_per_sample")) m.activationsPerSample = v->bytes();

  ConfigNode c = node.at("compute");
  c.allowDeclared(InputKind::Scenario, "training.model.compute", "layers");
  bool byTime = c.has("forward"), byFlops = c.has("flops_per_sample");
  if (byTime == byFlops) c.fail("give either forward (and backward) times or flops_per_sample");
  readBackwardFactor(c, m);
  if (byTime) {
    m.forward = c.at("forward").time();
    m.backward = c.has("backward") ? c.at("backward").time() : Time(std::llround(double(*m.forward) * m.backwardFactor));
  } else {
    m.flopsPerSample = c.at("flops_per_sample").count();
    readUtilization(c.at("utilization"), m);
  }
  return m;
}

} // namespace collsim
