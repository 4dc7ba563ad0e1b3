// Reading a model (configs/models/*.yaml) into a ModelSpec (sim/workload/model.h):
// its layers in forward order with their parameters and share of the
// compute, the bytes each parameter costs in weights, gradients and
// optimizer state, the activations a sample keeps for the backward pass,
// and the work of one sample's forward pass.
//
//   name: bert-large
//   layers:                                  # forward order
//     - {name: embeddings, parameters: 31.8M, compute: 0.01}
//     - {name: encoder, parameters: 12.6M, repeat: 24}
//   precision: {weights: 4, gradients: 4, master_weights: 0, optimizer_state: 8, accumulation: 0}
//   micro_batch: 8
//   activations_per_sample: 420MiB
//   compute: {flops_per_sample: 1.1T, utilization: 0.4, backward_factor: 2}
//   # or compute: {forward: 30ms, backward: 60ms}   (per micro-batch)
//
// Or by shape (sim/workload/transformer_shape.h derives the layers, the
// FLOPs and the activations):
//   name: llama3-8b
//   transformer: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336,
//                 vocabulary: 128256, sequence: 8192}  # gated_ffn, tied_embeddings,
//                                                      # experts, top_k,
//                                                      # recomputation: none | selective | full,
//                                                      # attention: flash | standard
// Such a model is timed operation by operation on the cluster's device
// (sim/workload/layer_compute.h); `compute: {utilization: 0.45}` instead
// times every operation at that share of the peak (backward_factor, 2 by
// default, is backward over forward, recomputation not included).
#pragma once

#include "sim/workload/model.h"

namespace collsim {

class ConfigNode;

// Throws ConfigError at the key that is wrong.
ModelSpec loadModel(const ConfigNode& node);

} // namespace collsim
