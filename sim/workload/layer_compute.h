// The compute of one micro-batch, layer by layer, on one device of a
// layout: forward, backward, and what recomputation repeats before backward.
//
// A transformer (model.transformer) without a `utilization` is timed
// operation by operation on the device (operation_cost.h), its GEMMs at the
// shapes a tensor-parallel rank runs (Megatron-LM's column- and
// row-parallel splits; T = micro-batch x sequence tokens, t = tp):
//   attention  norm; QKV GEMM T x (h + 2 kv) / t x h; the core; output
//              GEMM T x h x h / t; residual add
//   FFN        norm; up (and gate) T x f / t x h; activation; down
//              T x h x f / t; residual add. With experts, a router and
//              each of the device's experts / ep experts on its share of
//              the tokens, T x top_k x ep / experts
//   head       final norm; logits T x V / t x h; softmax cross-entropy
// The core is fused attention (flash: causal, so half of the 4 s^2 h / t
// FLOPs per sample, at the device's attention efficiency; backward 2.5 x
// forward, FlashAttention-2's count) or standard (QK^T and the product with
// V as batched GEMMs around a softmax through memory). Norms, adds and
// activations move their bytes at memory speed (on T / t tokens under
// sequence parallelism). Backward runs each GEMM twice (gradients of the
// input and of the weights) and moves twice the bytes of each other kernel.
// Recomputation repeats, before a block's backward, its attention core
// (selective; nothing under flash attention, whose backward recomputes the
// scores anyway) or its whole forward with its TP collectives (full).
//
// Other models, and a transformer with `compute: {utilization: u}`, share
// the model's forward and backward time (model.h's flat passTimes) among
// their layers by their compute share, / tp.
//
// Every pass over a layer (forward, backward, recomputation) then costs the
// device's layer_overhead more: the framework's launches and hooks.
#pragma once

#include <vector>

#include "sim/workload/model.h"
#include "topologies/cluster.h"

namespace collsim {

// A pass over a layer in two pieces: a block's attention and the rest (its
// FFN); other layers have only the rest. A block's backward pieces each end
// with the weight gradient of their column-parallel GEMM (QKV, the FFN's
// up and gate), which a framework may run beside the collective of the
// piece's input gradient (Megatron's default).
// A block's attention piece holds its attention core: `beforeCore` of it
// runs first (forward: the norm and QKV; backward: the output projection
// and the residual), then the core (`core`), which context parallelism
// cuts into cp chunks, one per key-value block of the ring.
struct PassPieces {
  Time attention = 0, rest = 0;
  Time attentionWeightGradient = 0, restWeightGradient = 0; // part of attention and of rest
  Time beforeCore = 0, core = 0;                            // part of attention
  Time total() const { return attention + rest; }
};

// Seconds of compute by the kind of kernel: GEMMs (and convolutions),
// fused attention, memory-bound kernels (norms, activations, adds,
// softmax, the optimizer), the framework's fixed costs (layer_overhead),
// and what a model timed by a flat utilization does not say.
struct ClassSeconds {
  double gemm = 0, attention = 0, memory = 0, overhead = 0, other = 0;
  double total() const { return gemm + attention + memory + overhead + other; }
  ClassSeconds& operator+=(const ClassSeconds& o);
  ClassSeconds operator-(const ClassSeconds& o) const;
  ClassSeconds operator*(double k) const;
};

struct LayerCompute {
  bool block = false; // a transformer block: its TP collectives go around each piece
  PassPieces forward, backward, recompute;
  bool recomputeCollectives = false; // full recomputation: the block's collectives run again
  // Its passes over one micro-batch (forward, backward and recomputation) by class.
  ClassSeconds classes;
};

// How a layout divides a layer's work: its matrices over tp, its experts
// over ep, its sequence over cp (each rank computes s / cp tokens, and 1 /
// cp of the causal attention: Megatron-LM's load-balanced chunks).
struct ComputeSplit {
  int tp = 1, ep = 1;
  bool sequenceParallel = false;
  int cp = 1;
};

// Whether a model is timed operation by operation (a transformer without
// given times or a flat utilization), rather than by shares of its passes.
bool timedByOperations(const ModelSpec& model);

// Throws InputError when a pass would not fit the clock (kMaxComputeSeconds).
std::vector<LayerCompute> layerCompute(const ModelSpec& model, const DeviceModel& device, const ComputeSplit& split);

// One device running the whole model: forward, and backward with its recomputation.
PassTimes passTimes(const ModelSpec& model, const DeviceModel& device);

} // namespace collsim
