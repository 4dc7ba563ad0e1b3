// How a training job splits one model over many devices (Megatron-LM's
// vocabulary): tensor parallelism (TP) cuts every layer's matrices over tp
// devices, context parallelism (CP) each sequence over cp devices (ring
// attention), pipeline parallelism (PP) gives each of pp stages a
// contiguous run of layers, and data parallelism (DP) runs dp such
// replicas on different micro-batches, optionally sharding the training
// state over them (ZeRO stage 1: optimizer state, 2: and gradients, 3: and
// weights). The CP ranks of a replica hold the same weights: gradients are
// reduced, and ZeRO shards, over dp x cp ranks (Megatron-LM's
// data-parallel group with context parallelism).
//
// Ranks are placed by `order`, innermost dimension first: with the default
// tp-cp-dp-pp (Megatron-LM's) a TP group is tp consecutive ranks (inside
// one server when tp divides the server's devices, so its traffic stays on
// HCCS), CP groups stride tp, DP groups tp x cp and pipeline stages tp x
// cp x dp.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace collsim {

enum class PipelineKind { GPipe, OneFOneB, Interleaved };

struct ParallelLayout {
  int tp = 1, pp = 1, dp = 1; // dp 0: the devices / (tp x cp x pp)
  int cp = 1;
  // Expert parallelism: each group of ep consecutive DP ranks holds 1/ep of
  // every MoE layer's experts and exchanges tokens by AllToAll; the expert
  // weights' gradients are reduced over the dp / ep ranks holding the same
  // experts. `expertImbalance`: the busiest device's expert work over the
  // mean (1: tokens spread evenly).
  int ep = 1;
  double expertImbalance = 1;
  int zero = 0;         // ZeRO stage 0..3
  int microBatches = 1; // per optimizer step and pipeline
  PipelineKind schedule = PipelineKind::OneFOneB;
  int virtualStages = 1; // interleaved: model chunks per device (Megatron-LM's virtual pipeline stages)
  // The user's split of the blocks over the stages (pp entries; interleaved:
  // pp x virtualStages, chunk k of stage s at k pp + s); empty: as even as
  // they go (pipeline_order.h).
  std::vector<int> stageLayers;
  bool sequenceParallel = false;
  // The dimensions innermost first, as letters: 't', 'c', 'd', 'p'.
  std::array<char, 4> order{'t', 'c', 'd', 'p'};

  int devices() const { return tp * cp * pp * dp; }
  int gradientReplicas() const { return dp * cp; } // the ranks a stage's gradients are reduced (and ZeRO shards) over
  std::string text() const; // "tp2 cp2 pp4 dp8 zero1 m16 1f1b"
};

const char* pipelineKindName(PipelineKind k); // "gpipe", "1f1b", "interleaved"

// Where a rank sits in the layout.
struct LayoutCoordinates {
  int tp = 0, dp = 0, pp = 0, cp = 0;
};

class RankPlacement {
public:
  explicit RankPlacement(const ParallelLayout& layout);
  int rank(LayoutCoordinates c) const;
  LayoutCoordinates of(int rank) const;
  // The ranks of `rank`'s group along one dimension, in order of that
  // coordinate: its TP group, CP group, DP group or pipeline (one rank per
  // stage); and its gradients' group, DP x CP (in order of cp, then dp).
  std::vector<int> tpGroup(int rank) const;
  std::vector<int> cpGroup(int rank) const;
  std::vector<int> dpGroup(int rank) const;
  std::vector<int> stages(int rank) const;
  std::vector<int> gradientGroup(int rank) const;
  // Inside the DP group: the EP group (ep consecutive members) and the
  // expert-data-parallel group (the members at the same place of every EP group).
  std::vector<int> epGroup(int rank) const;
  std::vector<int> expertDpGroup(int rank) const;
  // A number per group, 0 .. groups-1, the same for every member.
  int tpGroupIndex(int rank) const;
  int cpGroupIndex(int rank) const;
  int dpGroupIndex(int rank) const;
  int gradientGroupIndex(int rank) const;
  int epGroupIndex(int rank) const;
  int expertDpGroupIndex(int rank) const;
  const ParallelLayout& layout() const { return layout_; }

private:
  int stride(char dimension) const;
  std::vector<int> along(int rank, char dimension, int size) const;
  ParallelLayout layout_;
};

} // namespace collsim
