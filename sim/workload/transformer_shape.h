// A transformer described by its shape, and what follows from it in closed
// form: the parameters of each layer, the FLOPs of a sample's forward pass
// and the activations a sample keeps for the backward pass. A model file
// gives `transformer: {...}` instead of counting these by hand.
//
// Per block (hidden h, heads a, kv heads k, head size d = h / a, FFN f,
// e experts of which t are used per token, sequence s):
//   attention   Q and O: h x h each; K and V: h x k d each
//   FFN         per expert 3 h f (gated: SwiGLU's gate, up and down) or
//               2 h f; a router of h x e when e > 1
//   norms       2 h (RMSNorm/LayerNorm scales)
// Outside the blocks: the embedding (vocabulary x h), a final norm (h) and
// the output head (vocabulary x h, none when tied to the embedding).
// Forward FLOPs per sample: 2 x (the block parameters a token uses: the
// attention, t experts and the router) x s per block, attention's scores
// and mix 2 x 2 x s^2 x h per block, and the head 2 x vocabulary x h x s.
// Activations per sample (Korthikanti et al., 2022, "Reducing Activation
// Recomputation in Large Transformer Models", bytes per layer without
// parallelism: s h (34 + 5 a s / h), the second term the attention scores
// and their softmax and dropout): every block's; without the scores under
// selective recomputation (recomputed in backward) or flash attention
// (never stored); with full recomputation each block's input (2 s h,
// 16-bit) plus one block's whole set while it is recomputed. The formula
// is a dense block's: with experts, the larger FFN activations of top_k
// experts are not counted.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/units.h"

namespace collsim {

// What backward finds stored, and what it computes again first: nothing
// again (none); the attention core, QK^T, softmax and the product with V,
// whose activations grow with s^2 (selective, Korthikanti et al.); or
// each block whole from its input (full).
enum class Recomputation { None, Selective, Full };

struct TransformerShape {
  int layers = 0;
  std::uint64_t hidden = 0;
  int heads = 0;
  int kvHeads = 0; // 0: as many as heads (no grouped-query attention)
  std::uint64_t ffn = 0;
  std::uint64_t vocabulary = 0;
  std::uint64_t sequence = 0;
  bool gatedFfn = true;
  bool tiedEmbeddings = false;
  int experts = 1;
  int topK = 1;
  Recomputation recomputation = Recomputation::Full;
  // Fused attention (FlashAttention): scores never reach memory, backward
  // recomputes them in the kernel. Standard: QK^T and the product with V as
  // batched GEMMs around a softmax that goes through memory.
  bool flashAttention = true;
  // The fused kernel by name ("flash-2", ...: DeviceModel::attentionKernels),
  // for a run of an older or newer kernel than the device's best; empty:
  // the device's own figures.
  std::string attentionKernel;
  // Dropout after the attention's softmax and on both residual branches
  // (GPT-2/3 and Megatron-LM's GPT: 0.1); each writes a 1-byte mask.
  bool dropout = false;

  std::uint64_t kvDim() const { return std::uint64_t(kvHeads > 0 ? kvHeads : heads) * (hidden / std::uint64_t(heads)); }
  std::uint64_t attentionParameters() const;
  std::uint64_t expertParameters() const; // one expert's FFN
  std::uint64_t routerParameters() const;
  std::uint64_t blockParameters() const;  // every expert counted
  std::uint64_t activeBlockParameters() const; // what one token uses
  std::uint64_t embeddingParameters() const { return vocabulary * hidden; }
  std::uint64_t headParameters() const { return hidden + (tiedEmbeddings ? 0 : vocabulary * hidden); }
  std::uint64_t parameters() const;
  std::uint64_t activeParameters() const;
  double blockFlopsPerSample() const;
  double headFlopsPerSample() const;
  double flopsPerSample() const;
  Bytes activationsPerSample() const;
  // One block's activations per sample under tensor parallelism of `tp`
  // (Korthikanti et al.: s h (10 + 24/t + 5 a s / (h t)); with sequence
  // parallelism s h (34/t + 5 a s / (h t)); the scores' term only when they
  // are stored, see above), and what full recomputation
  // keeps of it: the block's 16-bit input, 2 s h (/ t with sequence
  // parallelism).
  Bytes blockActivations(int tp, bool sequenceParallel) const;
  Bytes blockInput(int tp, bool sequenceParallel) const;
  // A block's forward FLOPs per sample in its attention (the rest is its FFN).
  double attentionFlopsPerSample() const;
};

} // namespace collsim
