#include "sim/workload/layer_compute.h"

#include <cmath>
#include <string>

#include "sim/workload/operation_cost.h"

namespace collsim {
namespace {

// Seconds of one pass's pieces, before they become picoseconds.
struct Seconds {
  double attention = 0, rest = 0;
  double attentionWeightGradient = 0, restWeightGradient = 0; // backward: see PassPieces
  double beforeCore = 0, core = 0;
};

// A block, the head or the embedding of a transformer, one operation at a
// time; forward and backward in step, so that each operation is written
// once. Each operation also counts its seconds by class (classes()).
class OperationTimer {
public:
  OperationTimer(const TransformerShape& shape, const DeviceModel& device, int microBatch, int elementBytes,
                 const ComputeSplit& split)
      : t_(shape), d_(device), e_(elementBytes), split_(split), b_(microBatch),
        tokens_(double(microBatch) * double(shape.sequence) / double(split.cp)) {}

  // Forward, backward and recomputation of one block.
  void block(Seconds& forward, Seconds& backward, Seconds& recompute) {
    const double h = double(t_.hidden), tp = double(split_.tp), kv = double(t_.kvDim());
    const double T = tokens_, normTokens = split_.sequenceParallel ? T / tp : T;
    Seconds core; // forward of the attention core, for selective recomputation
    using Pass = std::pair<double, double>; // forward, backward
    auto attention = [&](Pass p) { forward.attention += p.first, backward.attention += p.second; };
    auto rest = [&](Pass p) { forward.rest += p.first, backward.rest += p.second; };
    // Attention: norm, QKV, core, output projection, residual add.
    attention(elementwise(normTokens * h * 2));
    const GemmShape qkv{T, (h + 2 * kv) / tp, h};
    attention(gemm(qkv));
    backward.attentionWeightGradient += weightGradient(qkv);
    forward.beforeCore = forward.attention;
    const double backwardBeforeCore = backward.attention;
    const ClassSeconds beforeCore = forward_;
    const Pass coreTimes = attentionCore();
    const ClassSeconds coreClasses = forward_ - beforeCore;
    attention(coreTimes);
    core.attention = core.core = coreTimes.first;
    forward.core = coreTimes.first, backward.core = coreTimes.second;
    attention(gemm({T, h, h / tp}));
    attention(residual(normTokens * h));
    // Backward runs the projection and the residual first, then the core.
    backward.beforeCore = backward.attention - backwardBeforeCore - backward.core;
    // FFN: norm, up (and gate), activation, down, residual add.
    const double f = double(t_.ffn), up = t_.gatedFfn ? 2 : 1, activation = t_.gatedFfn ? 3 : 2;
    rest(elementwise(normTokens * h * 2));
    if (t_.experts > 1) {
      const double experts = double(t_.experts), mine = experts / double(split_.ep);
      const double perExpert = T * double(t_.topK) * double(split_.ep) / experts;
      rest(gemm({T, experts, h}));
      rest(gemm({perExpert, up * f / tp, h, mine}));
      rest(elementwise(T * double(t_.topK) * f / tp * activation));
      rest(gemm({perExpert, h, f / tp, mine}));
    } else {
      const GemmShape upAndGate{T, up * f / tp, h};
      rest(gemm(upAndGate));
      backward.restWeightGradient += weightGradient(upAndGate);
      rest(elementwise(T * f / tp * activation));
      rest(gemm({T, h, f / tp}));
    }
    rest(residual(normTokens * h));
    if (t_.recomputation == Recomputation::Full) recompute = forward, recomputed_ = forward_;
    else if (t_.recomputation == Recomputation::Selective && !t_.flashAttention) recompute = core, recomputed_ = coreClasses;
  }

  // The final norm, the logits and the softmax cross-entropy (fp32 logits
  // read and written), vocabulary-parallel over tp.
  void head(Seconds& forward, Seconds& backward) {
    const double h = double(t_.hidden), tp = double(split_.tp), T = tokens_;
    const double normTokens = split_.sequenceParallel ? T / tp : T;
    auto add = [&](std::pair<double, double> fb) { forward.rest += fb.first, backward.rest += fb.second; };
    add(elementwise(normTokens * h * 2));
    add(gemm({T, double(t_.vocabulary) / tp, h}));
    double logits = T * double(t_.vocabulary) / tp * 4 * 2;
    add(memory(memorySeconds(d_, logits), memorySeconds(d_, logits)));
  }

  // The embedding: a gather of T rows forward, their gradients added back.
  void embedding(Seconds& forward, Seconds& backward) {
    auto [f, b] = elementwise(tokens_ * double(t_.hidden) / (split_.sequenceParallel ? double(split_.tp) : 1));
    forward.rest += f, backward.rest += b;
  }

  // What the operations since the last call took, by class: forward,
  // backward and recomputation together.
  ClassSeconds classes() {
    ClassSeconds all = forward_;
    all += backward_;
    all += recomputed_;
    forward_ = backward_ = recomputed_ = {};
    return all;
  }

private:
  // Forward and backward of a GEMM: backward computes the input's gradient
  // (m x k x n) and the weights' (k x n x m).
  std::pair<double, double> gemm(GemmShape g) {
    double forward = gemmSeconds(d_, g, e_);
    double backward = gemmSeconds(d_, {g.m, g.k, g.n, g.batch}, e_) + weightGradient(g);
    forward_.gemm += forward, backward_.gemm += backward;
    return {forward, backward};
  }
  double weightGradient(GemmShape g) const { return gemmSeconds(d_, {g.k, g.n, g.m, g.batch}, e_); }
  // A memory-bound kernel's forward and backward, counted as such.
  std::pair<double, double> memory(double forward, double backward) {
    forward_.memory += forward, backward_.memory += backward;
    return {forward, backward};
  }
  // A kernel moving `elements` 16-bit values forward; backward moves twice as many.
  std::pair<double, double> elementwise(double elements) {
    double forward = memorySeconds(d_, elements * double(e_));
    return memory(forward, 2 * forward);
  }
  // A residual add of a branch's `elements` outputs: reads two, writes one
  // (with dropout, fused in, also writes the 1-byte mask backward reads).
  std::pair<double, double> residual(double elements) {
    auto [forward, backward] = elementwise(3 * elements);
    double mask = t_.dropout ? memorySeconds(d_, elements) : 0;
    memory(mask, mask);
    return {forward + mask, backward + mask};
  }

  // The attention core's forward and backward.
  std::pair<double, double> attentionCore() {
    const double s = double(t_.sequence), heads = double(t_.heads) / double(split_.tp);
    const double headSize = double(t_.hidden) / double(t_.heads), pairs = double(b_) * heads;
    if (t_.flashAttention) {
      // Causal: the kernel skips the masked half; under context parallelism
      // each rank's queries meet 1 / cp of it.
      double flops = 4 * s * s * headSize * pairs / 2 / double(split_.cp);
      double forward = attentionSeconds(d_, flops, false), backward = attentionSeconds(d_, 2.5 * flops, true);
      forward_.attention += forward, backward_.attention += backward;
      return {forward, backward};
    }
    auto [scoresF, scoresB] = gemm({s, s, headSize, pairs}); // Q K^T
    auto [mixF, mixB] = gemm({s, headSize, s, pairs});       // softmax(.) V
    double probabilities = pairs * s * s * double(e_);
    // The softmax reads and writes; backward reads two, writes one.
    auto [softmaxF, softmaxB] = memory(memorySeconds(d_, 2 * probabilities), memorySeconds(d_, 3 * probabilities));
    double forward = scoresF + mixF + softmaxF, backward = scoresB + mixB + softmaxB;
    if (t_.dropout) { // reads the probabilities, writes them and a 1-byte mask; backward the same
      double dropout = memorySeconds(d_, (2 + 1.0 / double(e_)) * probabilities);
      memory(dropout, dropout);
      forward += dropout, backward += dropout;
    }
    return {forward, backward};
  }

  const TransformerShape& t_;
  const DeviceModel& d_;
  int e_;
  ComputeSplit split_;
  int b_;
  double tokens_;
  ClassSeconds forward_, backward_, recomputed_;
};

Time picoseconds(double seconds, const std::string& model) {
  if (!(seconds <= kMaxComputeSeconds))
    throw InputError(model + ": one layer's pass would take more than collsim's clock holds in a step (" +
                     std::to_string(seconds) + " s)");
  return Time(std::llround(seconds * double(kPsPerSec)));
}

PassPieces pieces(const Seconds& s, const std::string& model) {
  return {picoseconds(s.attention, model),    picoseconds(s.rest, model),
          picoseconds(s.attentionWeightGradient, model), picoseconds(s.restWeightGradient, model),
          picoseconds(s.beforeCore, model),   picoseconds(s.core, model)};
}

std::vector<LayerCompute> byOperations(const ModelSpec& m, const DeviceModel& d, const ComputeSplit& split) {
  if (!(d.flops > 0 && d.memoryBandwidth > 0))
    throw InputError("timing " + m.name + " by its operations needs the device's flops and memory_bandwidth");
  const DeviceModel device = withAttentionKernel(d, m.transformer->attentionKernel);
  OperationTimer timer(*m.transformer, device, m.microBatch, int(m.precision.weights), split);
  std::vector<LayerCompute> out(m.layers.size());
  Seconds forward, backward, recompute;
  timer.embedding(forward, backward);
  out.front() = {false, pieces(forward, m.name), pieces(backward, m.name), {}, false, timer.classes()};
  forward = backward = {};
  timer.block(forward, backward, recompute);
  LayerCompute block{true, pieces(forward, m.name), pieces(backward, m.name), pieces(recompute, m.name),
                     m.transformer->recomputation == Recomputation::Full, timer.classes()};
  for (std::size_t i = 1; i + 1 < out.size(); ++i) out[i] = block;
  forward = backward = {};
  timer.head(forward, backward);
  out.back() = {false, pieces(forward, m.name), pieces(backward, m.name), {}, false, timer.classes()};
  return out;
}

// The model's flat forward and backward times shared by compute share.
std::vector<LayerCompute> byShares(const ModelSpec& m, const DeviceModel& d, const ComputeSplit& split) {
  PassTimes pass = flatPassTimes(m, d.flops);
  const TransformerShape* t = m.transformer ? &*m.transformer : nullptr;
  double attention = t ? t->attentionFlopsPerSample() / t->blockFlopsPerSample() : 0;
  double s = t ? double(t->sequence) : 0;
  double core = t ? 4 * s * s * double(t->hidden) / t->blockFlopsPerSample() : 0; // of a block's forward
  std::vector<LayerCompute> out;
  for (const ModelLayer& l : m.layers) {
    bool block = t && l.name.rfind("block.", 0) == 0;
    auto split2 = [&](Time whole) {
      Time total = Time(double(whole) * l.computeShare / split.tp);
      Time a = block ? Time(double(total) * attention) : 0;
      return PassPieces{a, total - a};
    };
    LayerCompute c{block, split2(pass.forward), split2(pass.backward), {}, false, {}};
    if (block && t->recomputation == Recomputation::Full) c.recompute = c.forward, c.recomputeCollectives = true;
    if (block && t->recomputation == Recomputation::Selective && !t->flashAttention)
      c.recompute.attention = Time(double(c.forward.total()) * core);
    c.classes.other = toSeconds(c.forward.total() + c.backward.total() + c.recompute.total());
    out.push_back(c);
  }
  return out;
}

// The framework's fixed cost of each pass over a layer (DeviceModel::
// layerOverhead): after its kernels, in the piece that ends the pass.
void addLayerOverhead(std::vector<LayerCompute>& layers, Time overhead) {
  if (overhead == 0) return;
  for (LayerCompute& l : layers) {
    l.forward.rest += overhead, l.backward.rest += overhead;
    int passes = 2;
    if (l.recompute.total() > 0) l.recompute.rest += overhead, ++passes;
    l.classes.overhead += passes * toSeconds(overhead);
  }
}

} // namespace

ClassSeconds& ClassSeconds::operator+=(const ClassSeconds& o) {
  gemm += o.gemm, attention += o.attention, memory += o.memory, overhead += o.overhead, other += o.other;
  return *this;
}

ClassSeconds ClassSeconds::operator-(const ClassSeconds& o) const {
  return {gemm - o.gemm, attention - o.attention, memory - o.memory, overhead - o.overhead, other - o.other};
}

ClassSeconds ClassSeconds::operator*(double k) const {
  return {gemm * k, attention * k, memory * k, overhead * k, other * k};
}

bool timedByOperations(const ModelSpec& m) { return m.transformer && !m.forward && m.utilization == 0; }

std::vector<LayerCompute> layerCompute(const ModelSpec& model, const DeviceModel& device, const ComputeSplit& split) {
  std::vector<LayerCompute> layers =
      timedByOperations(model) ? byOperations(model, device, split) : byShares(model, device, split);
  addLayerOverhead(layers, device.layerOverhead);
  return layers;
}

PassTimes passTimes(const ModelSpec& model, const DeviceModel& device) {
  std::vector<LayerCompute> layers = layerCompute(model, device, {});
  PassTimes p;
  if (timedByOperations(model)) {
    for (const LayerCompute& l : layers) p.forward += l.forward.total(), p.backward += l.backward.total();
  } else {
    p = flatPassTimes(model, device.flops); // whole, not rounded layer by layer
    p.forward += Time(layers.size()) * device.layerOverhead, p.backward += Time(layers.size()) * device.layerOverhead;
  }
  for (const LayerCompute& l : layers) p.backward += l.recompute.total();
  return p;
}

} // namespace collsim
