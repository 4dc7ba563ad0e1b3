#include "sim/workload/transformer_shape.h"

namespace collsim {

std::uint64_t TransformerShape::attentionParameters() const { return 2 * hidden * hidden + 2 * hidden * kvDim(); }

std::uint64_t TransformerShape::expertParameters() const { return (gatedFfn ? 3 : 2) * hidden * ffn; }

std::uint64_t TransformerShape::routerParameters() const { return experts > 1 ? hidden * std::uint64_t(experts) : 0; }

std::uint64_t TransformerShape::blockParameters() const {
  return attentionParameters() + std::uint64_t(experts) * expertParameters() + routerParameters() + 2 * hidden;
}

std::uint64_t TransformerShape::activeBlockParameters() const {
  return attentionParameters() + std::uint64_t(topK) * expertParameters() + routerParameters() + 2 * hidden;
}

std::uint64_t TransformerShape::parameters() const {
  return embeddingParameters() + std::uint64_t(layers) * blockParameters() + headParameters();
}

std::uint64_t TransformerShape::activeParameters() const {
  return embeddingParameters() + std::uint64_t(layers) * activeBlockParameters() + headParameters();
}

double TransformerShape::blockFlopsPerSample() const {
  double s = double(sequence), h = double(hidden);
  return 2.0 * double(activeBlockParameters()) * s + 4.0 * s * s * h;
}

double TransformerShape::headFlopsPerSample() const {
  return 2.0 * double(vocabulary) * double(hidden) * double(sequence);
}

double TransformerShape::flopsPerSample() const { return double(layers) * blockFlopsPerSample() + headFlopsPerSample(); }

Bytes TransformerShape::activationsPerSample() const {
  double s = double(sequence), h = double(hidden);
  double block = double(blockActivations(1, false));
  double kept = recomputation == Recomputation::Full ? double(layers) * 2.0 * s * h + block : double(layers) * block;
  return Bytes(kept);
}

Bytes TransformerShape::blockActivations(int tp, bool sequenceParallel) const {
  double s = double(sequence), h = double(hidden), t = double(tp);
  // Under full recomputation the block being recomputed holds its whole set, scores included.
  bool scores = !flashAttention && recomputation != Recomputation::Selective;
  double scoreTerm = scores ? 5.0 * double(heads) * s / (h * t) : 0;
  return Bytes(s * h * (sequenceParallel ? 34.0 / t + scoreTerm : 10.0 + 24.0 / t + scoreTerm));
}

Bytes TransformerShape::blockInput(int tp, bool sequenceParallel) const {
  return 2 * sequence * hidden / std::uint64_t(sequenceParallel ? tp : 1);
}

double TransformerShape::attentionFlopsPerSample() const {
  double s = double(sequence), h = double(hidden);
  return 2.0 * double(attentionParameters()) * s + 4.0 * s * s * h;
}

} // namespace collsim
