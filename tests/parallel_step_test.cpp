// Hybrid parallelism (tensor, pipeline, data with ZeRO) against closed
// forms: rank placement, the 1F1B order, TP and PP volumes, the pipeline
// bubble with free communication, ZeRO's volume, and contention between
// TP and DP traffic on shared links.
#include <doctest/doctest.h>

#include "relative_error.h"
#include "test_support.h"

#include "algorithms/core/registry.h"
#include "sim/config/config_node.h"
#include "sim/run/simulate.h"
#include "sim/config/model_config.h"
#include "sim/config/training_config.h"
#include "sim/workload/parallel_step.h"
#include "sim/workload/step_simulation.h"
#include "sim/workload/pipeline_order.h"

using namespace collsim;
using namespace collsim::literals;
using collsim::testing::relativeError;

namespace {

// A small decoder: 8 blocks, hidden 64, sequence 64, one sample a
// micro-batch, fp32 everywhere (so a gradient and a weight are 4 bytes);
// vocabulary 1 keeps the head's compute to 0.1 % of a block's.
ModelSpec smallDecoder(int layers = 8, const std::string& recomputation = "full") {
  std::string yaml = "{name: small, transformer: {layers: " + std::to_string(layers) +
                     ", hidden: 64, heads: 4, ffn: 256, vocabulary: 1, sequence: 64, recomputation: " +
                     recomputation + "}, "
                     "precision: {weights: 4, master_weights: 0, gradients: 4, optimizer_state: 8}, "
                     "micro_batch: 1, compute: {utilization: 0.5, backward_factor: 2}}";
  return loadModel(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("small.yaml")));
}

// The same decoder with 4 experts per block, 2 of them used per token.
ModelSpec smallMoe() {
  std::string yaml = "{name: small-moe, transformer: {layers: 8, hidden: 64, heads: 4, ffn: 256, vocabulary: 1, "
                     "sequence: 64, experts: 4, top_k: 2}, "
                     "precision: {weights: 4, master_weights: 0, gradients: 4, optimizer_state: 8}, "
                     "micro_batch: 1, compute: {utilization: 0.5, backward_factor: 2}}";
  return loadModel(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("small-moe.yaml")));
}

// p devices on an HCCS ring; `free` makes communication cost (almost) nothing.
Cluster ringOf(int p, bool free = false) {
  Cluster c = collsim::testing::hccsRing(p);
  if (free)
    for (auto& link : c.links) link.params = {1'000'000'000'000'000'000ULL, 0};
  c.device.flops = 1e12;
  c.device.memoryBandwidth = 1'000'000'000'000ULL;
  c.device.memory = 32_GiB;
  return c;
}

TrainingSpec parallelOf(ParallelLayout l, ModelSpec m = smallDecoder()) {
  TrainingSpec t;
  t.model = std::move(m);
  t.parallel = l;
  t.accumulation = l.microBatches;
  return t;
}

// The slowest device's stream of steps runs from 0 to the step's end: its
// parts add up to the step.
StepResult step(const Cluster& c, const TrainingSpec& t) {
  StepResult r = simulateTrainingStep(c, t, StepOptions{});
  const StepBreakdown& b = r.breakdown;
  CHECK(b.compute + b.tensorParallel + b.expertParallel + b.pipeline + b.bubble + b.dataParallel + b.optimizer +
            b.contextParallel ==
        r.iteration);
  return r;
}

// The small decoder on 4 DP ranks of a ring, plainly and under ZeRO
// `stage`, its gradients in one bucket (no uneven pieces).
std::pair<StepResult, StepResult> plainAndZero(int stage) {
  ModelSpec m = smallDecoder();
  ParallelLayout plain, zero;
  plain.dp = zero.dp = 4;
  zero.zero = stage;
  TrainingSpec a = parallelOf(plain, m), b = parallelOf(zero, m);
  a.bucket = b.bucket = Bytes(m.gradientBytes());
  return {step(ringOf(4), a), step(ringOf(4), b)};
}

// b x s x h elements of 4 bytes: the activations a TP collective or a
// pipeline send carries.
constexpr Bytes kActivations = 1 * 64 * 64 * 4;

} // namespace

TEST_CASE("ranks are placed by the layout's order, innermost first") {
  ParallelLayout l;
  l.tp = 2, l.dp = 2, l.pp = 2;
  RankPlacement tpFirst(l); // tp-dp-pp: rank = t + 2 d + 4 p
  CHECK(tpFirst.rank({1, 0, 1}) == 5);
  CHECK(tpFirst.tpGroup(5) == std::vector<int>{4, 5});
  CHECK(tpFirst.dpGroup(5) == std::vector<int>{5, 7});
  CHECK(tpFirst.stages(5) == std::vector<int>{1, 5});
  l.order = {'p', 'd', 't'}; // rank = p + 2 d + 4 t
  RankPlacement ppFirst(l);
  CHECK(ppFirst.rank({1, 0, 1}) == 5);
  CHECK(ppFirst.tpGroup(5) == std::vector<int>{1, 5});
  CHECK(ppFirst.stages(5) == std::vector<int>{4, 5});
  CHECK(ppFirst.tpGroupIndex(1) == ppFirst.tpGroupIndex(5));
  CHECK(ppFirst.tpGroupIndex(1) != ppFirst.tpGroupIndex(3));
}

TEST_CASE("1F1B warms up with p - s - 1 forwards and holds at most p - s micro-batches") {
  using T = PipelineTask;
  CHECK(stageOrder(PipelineKind::OneFOneB, 4, 6, 0) ==
        std::vector<T>{{true, 0}, {true, 1}, {true, 2}, {true, 3}, {false, 0}, {true, 4}, {false, 1}, {true, 5},
                       {false, 2}, {false, 3}, {false, 4}, {false, 5}});
  CHECK(stageOrder(PipelineKind::OneFOneB, 4, 2, 3) == std::vector<T>{{true, 0}, {false, 0}, {true, 1}, {false, 1}});
  for (int s = 0; s < 4; ++s) {
    CHECK(activationsInFlight(PipelineKind::OneFOneB, 4, 6, s) == 4 - s);
    CHECK(activationsInFlight(PipelineKind::GPipe, 4, 6, s) == 6);
  }
  CHECK(activationsInFlight(PipelineKind::OneFOneB, 4, 2, 0) == 2);
}

TEST_CASE("with free communication the pipeline bubble is (p-1)/(m+p-1) of the step, for 1F1B and GPipe") {
  // Four equal stages of two blocks; the last stage is the slowest only by
  // the head's 0.1 %. Its compute is m (f + b); the step, without the
  // optimizer, is (m + p - 1)(f + b): the bubble is what it waits.
  for (PipelineKind kind : {PipelineKind::OneFOneB, PipelineKind::GPipe})
    for (int m : {1, 4, 8}) {
      ParallelLayout l;
      l.pp = 4, l.microBatches = m, l.schedule = kind;
      StepResult r = step(ringOf(4, true), parallelOf(l));
      double bubble = 1.0 - double(r.breakdown.compute) / double(r.iteration - r.optimizer);
      CAPTURE(m);
      CHECK(relativeError(bubble, 3.0 / (m + 3)) < 2e-3);
      // And the breakdown finds it as such: the transfers took (almost) nothing.
      CHECK(relativeError(double(r.breakdown.bubble) / double(r.iteration - r.optimizer), 3.0 / (m + 3)) < 2e-3);
      CHECK(r.breakdown.pipeline < r.iteration / 1000);
    }
}

TEST_CASE("the interleaved schedule cuts the bubble to (p-1)/(v m+p-1)") {
  // v = 2 chunks of one block per device (8 blocks over 4 x 2 chunks): a
  // device's pass over one chunk takes (f + b) / v, and the pipeline fills
  // in p - 1 of them: the step is (v m + p - 1)(f + b) / v.
  for (int m : {4, 8}) {
    ParallelLayout l;
    l.pp = 4, l.microBatches = m, l.schedule = PipelineKind::Interleaved, l.virtualStages = 2;
    StepResult r = step(ringOf(4, true), parallelOf(l));
    double bubble = 1.0 - double(r.breakdown.compute) / double(r.iteration - r.optimizer);
    CAPTURE(m);
    CHECK(relativeError(bubble, 3.0 / (2 * m + 3)) < 5e-3);
    CHECK(r.layout->text() == "tp1 pp4 dp1 m" + std::to_string(m) + " interleaved v2");
  }
  // Device 0 runs chunk 0 for micro-batches 0-3, then chunk 1 for them.
  std::vector<PipelineTask> order = stageOrder(PipelineKind::Interleaved, 4, 4, 0, 2);
  REQUIRE(order.size() == 16);
  CHECK(order[0] == PipelineTask{true, 0, 0});
  CHECK(order[4] == PipelineTask{true, 0, 1});
  int forwards = 0;
  for (const auto& t : order) forwards += t.forward;
  CHECK(forwards == 8);
  ParallelLayout bad;
  bad.pp = 4, bad.microBatches = 6, bad.schedule = PipelineKind::Interleaved, bad.virtualStages = 2;
  CHECK_THROWS_WITH_AS(step(ringOf(4, true), parallelOf(bad)), doctest::Contains("groups of pp"), InputError);
}

TEST_CASE("tensor parallelism moves 2 AllReduces of b s h per block forward and 2 backward, 2 more to recompute") {
  // tp 2 on 2 ranks: a ring AllReduce of n bytes sends n per rank (2 (p-1)/p n),
  // 2n in all. 8 blocks x 4 AllReduces x m micro-batches x 2n. No DP, no PP.
  // Full recomputation runs each block's forward again before its backward,
  // with its 2 AllReduces (Megatron-LM: 6 per block and micro-batch);
  // selective recomputation repeats the attention core alone, on no collective.
  for (bool sequenceParallel : {false, true}) {
    for (std::string recomputation : {"none", "selective", "full"}) {
      ParallelLayout l;
      l.tp = 2, l.microBatches = 3, l.sequenceParallel = sequenceParallel;
      TrainingSpec t = parallelOf(l);
      t.model = smallDecoder(8, recomputation);
      StepResult r = step(ringOf(2), t);
      // Sequence parallelism: an AllGather and a ReduceScatter instead of each
      // AllReduce, (p-1)/p n per rank each: the same bytes.
      CAPTURE(sequenceParallel);
      CAPTURE(recomputation);
      const Bytes perBlock = recomputation == "full" ? 6 : 4;
      CHECK(r.bytesSent == 8 * perBlock * 3 * 2 * kActivations);
      CHECK(r.breakdown.tensorParallel > 0);
    }
  }
}

TEST_CASE("pipeline parallelism sends each micro-batch's activations forward and their gradients back") {
  // pp 2: per micro-batch one send of b s h forward and one back.
  ParallelLayout l;
  l.pp = 2, l.microBatches = 5;
  StepResult r = step(ringOf(2), parallelOf(l));
  CHECK(r.bytesSent == 5 * 2 * kActivations);
  CHECK(r.replicas == 1);
  CHECK(r.layout->text() == "tp1 pp2 dp1 m5 1f1b");
}

TEST_CASE("ZeRO 1 moves what plain data parallelism moves: a ReduceScatter and an AllGather are an AllReduce") {
  // 4 DP ranks; gradients and weights are 4 bytes, so the AllGather of the
  // weights carries as many bytes as the gradients' ReduceScatter.
  auto [ra, rb] = plainAndZero(1);
  CHECK(ra.bytesSent > 0);
  CHECK(rb.bytesSent == ra.bytesSent);
  // ZeRO 1 keeps 1/dp of the optimizer state.
  CHECK(rb.memory.optimizerState == ra.memory.optimizerState / 4);
  CHECK(rb.memory.gradients == ra.memory.gradients);
}

TEST_CASE("ZeRO 2 reduce-scatters every micro-batch's gradients, ZeRO 1 the accumulated ones once") {
  // 4 DP ranks, 3 micro-batches, one bucket of n gradient bytes: ZeRO 1
  // reduce-scatters n once and gathers the n weight bytes, 2 x 3/4 n per
  // rank; ZeRO 2 keeps only its shard of the gradients, so it reduce-
  // scatters each micro-batch's: 3 + 1 = 4 x 3/4 n, twice ZeRO 1's bytes.
  ModelSpec m = smallDecoder();
  StepResult r[2];
  for (int stage : {1, 2}) {
    ParallelLayout l;
    l.dp = 4, l.zero = stage, l.microBatches = 3;
    TrainingSpec t = parallelOf(l, m);
    t.bucket = Bytes(m.gradientBytes());
    r[stage - 1] = step(ringOf(4), t);
  }
  CHECK(r[0].bytesSent == 4 * 2 * 3 * Bytes(m.gradientBytes()) / 4);
  CHECK(r[1].bytesSent == 2 * r[0].bytesSent);
}

TEST_CASE("ZeRO 3 moves 1.5 x the bytes of plain data parallelism and gathers each layer ahead of its pass") {
  // One micro-batch: plain DP all-reduces the gradients, 2 (p-1)/p n; ZeRO 3
  // gathers every layer's weights before its forward and again before its
  // backward, 2 (p-1)/p n, and reduce-scatters the gradients, (p-1)/p n.
  // Every layer's parameters divide by 4, so each rank's share is exact.
  auto [ra, rb] = plainAndZero(3);
  CHECK(rb.bytesSent * 2 == ra.bytesSent * 3);
  CHECK(rb.memory.weights < ra.memory.weights / 2);
  // Prefetch: the gathers run while the previous layer computes. On a slow
  // device each block computes far longer than its gather takes, so the
  // step waits for the first gather and the gradients' ReduceScatter after
  // backward (one bucket), not for all 2 x 10 gathers.
  ModelSpec m = smallDecoder();
  ParallelLayout zero3;
  zero3.dp = 4, zero3.zero = 3;
  TrainingSpec b = parallelOf(zero3, m);
  b.bucket = Bytes(m.gradientBytes());
  Cluster slow = ringOf(4);
  slow.device.flops = 1e10;
  StepResult rs = step(slow, b);
  auto alone = [&](Collective op, Bytes bytes) {
    AlgorithmEntry ring = *findAlgorithm(op, "ring");
    return simulateCollective(slow, {op, &ring, DataType::Float32, bytes, 1_MiB, false}).execution.finish;
  };
  Time oneGather = alone(Collective::AllGather, m.layers[1].parameters * 4);
  Time reduceScatter = alone(Collective::ReduceScatter, m.gradientBytes());
  CHECK(rs.breakdown.dataParallel >= reduceScatter);
  CHECK(rs.breakdown.dataParallel < reduceScatter + 3 * oneGather); // not + 20 x oneGather
  // Without prefetch each pass waits for its own gather: the step waits
  // for every layer's, before its forward and its backward, one at a time
  // (nothing else is on the links then), and for the ReduceScatter, which
  // may share the links with the last gather a little (the bucket is cut
  // where backward makes its last byte).
  b.paramPrefetch = false;
  StepResult inLine = step(slow, b);
  Time gathers = 0;
  for (const ModelLayer& layer : m.layers)
    if (layer.parameters > 0) gathers += 2 * alone(Collective::AllGather, layer.parameters * 4);
  CHECK(inLine.breakdown.dataParallel >= gathers + reduceScatter);
  CHECK(inLine.breakdown.dataParallel < gathers + reduceScatter + oneGather);
  CHECK(inLine.breakdown.compute == rs.breakdown.compute);
  // And it holds one gathered layer whole, not two: the largest's
  // parameters of 4 bytes less (a block's 65,664).
  std::uint64_t largest = 0;
  for (const ModelLayer& layer : m.layers) largest = std::max(largest, layer.parameters);
  CHECK(largest == 65664);
  CHECK(rs.memory.weights - inLine.memory.weights == Bytes(largest) * 4);
  CHECK(inLine.bytesSent == rs.bytesSent);
}

TEST_CASE("expert parallelism moves each token to its top-k experts and back, by AllToAll, in both passes") {
  // ep 4 = dp 4 on a ring of 4: each MoE block's FFN sits between two
  // AllToAlls forward, two more when full recomputation runs the forward
  // again, and two backward, of n = b s h x top_k x 4 bytes per
  // rank. A ring AllToAll forwards each block the distance to its owner:
  // (1 + 2 + 3) n/4 = 1.5 n per rank, 6 n for the 4 ranks. The experts'
  // gradients stay (each expert lives on one rank: dp / ep = 1); the dense
  // ones are all-reduced in one bucket, 2 x 3/4 of them per rank.
  ModelSpec m = smallMoe();
  const TransformerShape& t = *m.transformer;
  ParallelLayout l;
  l.dp = 4, l.ep = 4;
  TrainingSpec spec = parallelOf(l, m);
  std::uint64_t dense = m.parameters() - std::uint64_t(t.layers) * std::uint64_t(t.experts) * t.expertParameters();
  spec.bucket = dense * 4;
  StepResult r = step(ringOf(4), spec);
  const Bytes n = 64 * 64 * 4 * 2;
  CHECK(r.bytesSent == 8 * 6 * 6 * n + 4 * 2 * 3 * (dense * 4) / 4);
  CHECK(r.breakdown.expertParallel > 0);
  CHECK(r.layout->text() == "tp1 pp1 dp4 ep4");
  // Each device holds a quarter of the experts.
  ParallelLayout one = l;
  one.ep = 1;
  StepResult all = step(ringOf(4), parallelOf(one, m));
  Bytes expertWeights = Bytes(t.layers) * Bytes(t.experts) * t.expertParameters() * 4;
  CHECK(all.memory.weights - r.memory.weights == expertWeights * 3 / 4);
  // An uneven spread of tokens keeps the busiest device's experts longer.
  l.expertImbalance = 1.5;
  StepResult uneven = step(ringOf(4), parallelOf(l, m));
  CHECK(uneven.breakdown.compute > r.breakdown.compute);
  CHECK(uneven.bytesSent == r.bytesSent);
}

TEST_CASE("a layout of data parallelism alone is today's data-parallel model") {
  ModelSpec m = smallDecoder();
  TrainingSpec plain;
  plain.model = m;
  ParallelLayout l;
  l.dp = 0; // from the devices
  TrainingSpec laidOut = parallelOf(l, m);
  StepResult a = step(ringOf(4), plain), b = step(ringOf(4), laidOut);
  CHECK(b.iteration == a.iteration);
  CHECK(b.bytesSent == a.bytesSent);
  CHECK(b.layout->dp == 4);
}

TEST_CASE("TP and DP traffic on the same links slow each other") {
  // tp 2 x dp 2 on a ring of 4: TP pairs {0,1}, {2,3}; DP pairs {0,2},
  // {1,3} cross the TP links. With overlap the gradient buckets run during
  // backward's TP AllReduces; without, after them.
  ModelSpec m = smallDecoder();
  ParallelLayout l;
  l.tp = 2, l.dp = 2, l.microBatches = 1;
  TrainingSpec together = parallelOf(l, m), apart = parallelOf(l, m);
  together.bucket = apart.bucket = 64_KiB;
  apart.overlap = false;
  StepResult a = step(ringOf(4), together), b = step(ringOf(4), apart);
  CHECK(a.bytesSent == b.bytesSent);
  CHECK(a.breakdown.tensorParallel > b.breakdown.tensorParallel);
}

TEST_CASE("a layout that does not match the cluster or the model is refused") {
  ParallelLayout l;
  l.tp = 3;
  CHECK_THROWS_WITH_AS(step(ringOf(3), parallelOf(l)), doctest::Contains("does not divide the model's 4 heads"), InputError);
  l.tp = 2, l.dp = 3;
  CHECK_THROWS_WITH_AS(step(ringOf(4), parallelOf(l)), doctest::Contains("= 6 devices, but"), InputError);
  l.tp = 1, l.dp = 1, l.pp = 9;
  CHECK_THROWS_WITH_AS(step(ringOf(9), parallelOf(l)), doctest::Contains("pp 9 is more stages than the model's 8 layers"),
                       InputError);
}

TEST_CASE("blocks that do not divide among the stages go to the middle stages first") {
  // Llama 3 405B's split: 126 blocks on 16 stages, 7 on the two ends (which
  // also hold the embedding and the head) and 8 on the 14 others.
  ModelSpec m = smallDecoder(126);
  std::vector<LayerRange> stages = splitLayers(m, 16);
  REQUIRE(stages.size() == 16);
  CHECK(stages.front().first == 0);
  CHECK(stages.back().end == m.layers.size());
  for (std::size_t s = 0; s < stages.size(); ++s) {
    if (s > 0) CHECK(stages[s].first == stages[s - 1].end);
    std::size_t blocks = stages[s].end - stages[s].first - (s == 0) - (s + 1 == stages.size());
    CAPTURE(s);
    CHECK(blocks == (s == 0 || s == 15 ? 7u : 8u));
  }
  // 8 blocks on 3 stages: 3, 3, 2 (the middle first, then the first stage).
  std::vector<LayerRange> three = splitLayers(smallDecoder(), 3);
  CHECK(three[0].end - three[0].first == 1 + 3);
  CHECK(three[1].end - three[1].first == 3);
  CHECK(three[2].end - three[2].first == 2 + 1);
  // Such a pipeline runs; the last stage, with a block fewer, waits for the others.
  ParallelLayout l;
  l.pp = 3, l.microBatches = 6;
  StepResult r = step(ringOf(3, true), parallelOf(l));
  CHECK(r.breakdown.bubble > 0);
}

TEST_CASE("a scenario's layout that does not fit its cluster exits 2 at the layout's location") {
  std::string scenario = collsim::testing::source("tests/data/training/llama3-8b-tp8-pp2.yaml");
  auto r = collsim::testing::cli({"run", scenario, "--set", "cluster.servers=2", "--set", "training.parallel.tp=3"});
  CHECK(r.status == 2);
  CHECK(r.err.find("llama3-8b-tp8-pp2.yaml:10:13: training.parallel: tp x pp = 6 does not divide") != std::string::npos);
  r = collsim::testing::cli({"run", scenario, "--set", "cluster.servers=2", "--set", "training.parallel.ep=2"});
  CHECK(r.status == 2);
  CHECK(r.err.find("training.parallel: ep 2 needs a model with experts") != std::string::npos);
}

namespace {

// The small decoder timed by its operations (GEMMs, attention, memory):
// its backward pieces end with a weight gradient a framework may overlap.
ModelSpec smallDecoderByOperations() {
  std::string yaml = "{name: small-ops, transformer: {layers: 8, hidden: 64, heads: 4, ffn: 256, vocabulary: 1, "
                     "sequence: 64, recomputation: none}, "
                     "precision: {weights: 4, master_weights: 0, gradients: 4, optimizer_state: 8}, micro_batch: 1}";
  return loadModel(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("small-ops.yaml")));
}

} // namespace

TEST_CASE("TP collectives pipelined with the compute beside them move the same bytes and hide behind it") {
  // tp 2 with sequence parallelism: each piece's AllGather runs while the
  // GEMM works on the rank's own chunk (1/tp of the piece), its
  // ReduceScatter while it computes the last chunk. On a device 100 x
  // slower than the links need, every collective hides: the step is its
  // compute and optimizer; blocking, it waits for each.
  ParallelLayout l;
  l.tp = 2, l.microBatches = 3, l.sequenceParallel = true;
  Cluster slow = ringOf(2);
  slow.device.flops = 1e10;
  TrainingSpec blocking = parallelOf(l), pipelined = parallelOf(l);
  pipelined.tpCommOverlap = true;
  StepResult a = step(slow, blocking), b = step(slow, pipelined);
  CHECK(b.bytesSent == a.bytesSent);
  CHECK(a.breakdown.tensorParallel > 0);
  CHECK(b.breakdown.tensorParallel == 0);
  CHECK(b.iteration == b.breakdown.compute + b.breakdown.optimizer);
  CHECK(b.iteration < a.iteration);
  // On a fast device the collectives outlast the chunks beside them: the
  // step still waits, but at most what it waited blocking.
  Cluster fast = ringOf(2);
  fast.device.flops = 1e15;
  StepResult c = step(fast, blocking), d = step(fast, pipelined);
  CHECK(d.breakdown.tensorParallel > 0);
  CHECK(d.breakdown.tensorParallel <= c.breakdown.tensorParallel);
}

TEST_CASE("a backward piece's input-gradient AllReduce beside its weight gradient hides behind it") {
  // tp 2 without sequence parallelism, recomputation none: per block and
  // micro-batch two AllReduces forward, two backward, all of b s h. With
  // tp_wgrad (Megatron's default) each backward one runs beside the weight
  // gradient of the column-parallel GEMM its piece ends with (QKV, FFN up):
  // on a device slow enough that the weight gradient outlasts it, only the
  // forward half of the TP time is left, to within the one AllReduce that
  // waits at the end of the last block of each micro-batch.
  ParallelLayout l;
  l.tp = 2, l.microBatches = 2;
  Cluster slow = ringOf(2);
  slow.device.flops = 1e9;
  TrainingSpec blocking = parallelOf(l, smallDecoderByOperations()), beside = blocking;
  beside.tpWgradOverlap = true;
  StepResult a = step(slow, blocking), b = step(slow, beside);
  CHECK(b.bytesSent == a.bytesSent);
  CHECK(double(b.breakdown.tensorParallel) == doctest::Approx(double(a.breakdown.tensorParallel) / 2).epsilon(0.05));
  // A model timed by a flat utilization says nothing of its weight
  // gradients: nothing overlaps.
  TrainingSpec flat = parallelOf(l), flatBeside = flat;
  flatBeside.tpWgradOverlap = true;
  CHECK(step(slow, flatBeside).iteration == step(slow, flat).iteration);
}

TEST_CASE("a distributed optimizer's gathers beside the next forward leave the step's end") {
  // ZeRO 1 on 4 DP ranks: the updated weights' AllGather (3/4 n a rank, as
  // much as the gradients' ReduceScatter) runs from the step's start, each
  // layer's before its first forward, instead of after the optimizer. The
  // bytes are the same; on a slow device the gathers hide behind the
  // forward, so the DP wait is the ReduceScatter's and the first gathers':
  // the embedding's (a few latencies), then the first block's, which the
  // embedding's forward (next to nothing) cannot hide.
  ModelSpec m = smallDecoder();
  ParallelLayout l;
  l.dp = 4, l.zero = 1;
  TrainingSpec atEnd = parallelOf(l, m), beside = atEnd;
  atEnd.bucket = beside.bucket = Bytes(m.gradientBytes());
  atEnd.bucketCopy = beside.bucketCopy = false; // a distributed optimizer's flat buffer
  beside.paramGatherOverlap = true;
  Cluster slow = ringOf(4);
  slow.device.flops = 1e10;
  StepResult a = step(slow, atEnd), b = step(slow, beside);
  CHECK(b.bytesSent == a.bytesSent);
  auto alone = [&](Collective op, Bytes bytes) {
    AlgorithmEntry ring = *findAlgorithm(op, "ring");
    return simulateCollective(slow, {op, &ring, DataType::Float32, bytes, 1_MiB, false}).execution.finish;
  };
  const Time reduceScatter = alone(Collective::ReduceScatter, m.gradientBytes());
  const Time firstGather = alone(Collective::AllGather, m.layers[0].parameters * 4) +
                           alone(Collective::AllGather, m.layers[1].parameters * 4);
  CHECK(b.breakdown.dataParallel == doctest::Approx(double(reduceScatter + firstGather)).epsilon(0.002));
  CHECK(a.breakdown.dataParallel > reduceScatter + 2 * firstGather);
  CHECK(b.iteration < a.iteration);
}

TEST_CASE("a framework sets the overlaps' defaults, and a switch that cannot apply is refused where it is set") {
  auto training = [](const std::string& yaml) {
    return loadTraining(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("t.yaml")));
  };
  const std::string model = "model: {name: m, layers: [{name: l, parameters: 1M}], compute: {forward: 1ms}}";
  TrainingSpec ddp = training("{" + model + "}");
  CHECK(ddp.overlap);
  CHECK(!ddp.tpWgradOverlap);
  TrainingSpec megatron = training("{" + model + ", framework: megatron}");
  CHECK(!megatron.overlap);
  CHECK(megatron.tpWgradOverlap);
  CHECK(!megatron.paramGatherOverlap);
  CHECK(!training("{" + model + ", framework: deepspeed, parallel: {zero: 1}}").overlap);
  CHECK(training("{" + model + ", framework: deepspeed, parallel: {zero: 3}}").overlap);
  TrainingSpec set = training("{" + model + ", framework: megatron, parallel: {zero: 1, sequence_parallel: true}, "
                              "overlap: {grad_reduce: true, param_gather: true, tp_comm: true}}");
  CHECK(set.overlap);
  CHECK(set.paramGatherOverlap);
  CHECK(set.tpCommOverlap);
  CHECK(set.tpWgradOverlap);
  CHECK_THROWS_WITH_AS(training("{" + model + ", parallel: {tp: 2}, overlap: {tp_comm: true}}"),
                       doctest::Contains("t.yaml:1:120: overlap.tp_comm: tp_comm pipelines sequence parallelism's"),
                       ConfigError);
  CHECK_FALSE(training("{" + model + ", parallel: {zero: 3}, overlap: {param_prefetch: false}}").paramPrefetch);
  CHECK_THROWS_WITH_AS(training("{" + model + ", parallel: {zero: 1}, overlap: {param_prefetch: false}}"),
                       doctest::Contains("overlap.param_prefetch: param_prefetch says when ZeRO 3 gathers"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(training("{" + model + ", parallel: {zero: 3}, overlap: {param_gather: true}}"),
                       doctest::Contains("overlap.param_gather: param_gather overlaps a distributed optimizer's"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(training("{" + model + ", overlap: {grad: true}}"),
                       doctest::Contains("unknown key 'grad'"), ConfigError);
  // DDP copies gradients into its buckets; ZeRO 2-3 and the other frameworks reduce flat buffers.
  CHECK(ddp.bucketCopy);
  CHECK(training("{" + model + ", parallel: {zero: 1}}").bucketCopy);
  CHECK(!training("{" + model + ", parallel: {zero: 2}}").bucketCopy);
  CHECK(!megatron.bucketCopy);
  CHECK(!training("{" + model + ", framework: fsdp}").bucketCopy);
  CHECK(training("{" + model + ", framework: megatron, bucket_copy: true}").bucketCopy);
  CHECK_THROWS_WITH_AS(training("{" + model + ", bucket_copy: maybe}"), doctest::Contains("t.yaml:1:"), ConfigError);
}

TEST_CASE("a user's stage split gives each stage the blocks it names") {
  // 8 blocks on 2 stages as [6, 2]: stage 0 holds the embedding and 6
  // blocks, stage 1 two blocks and the head.
  ModelSpec m = smallDecoder();
  std::vector<LayerRange> split = splitLayers(m, 2, {6, 2});
  CHECK(split[0].first == 0);
  CHECK(split[0].end == 7);
  CHECK(split[1].end == m.layers.size());
  // With free communication and many micro-batches the step follows the
  // slowest stage: 6 blocks against 4 of the even split (the blocks
  // dominate: the head and embedding do next to nothing), 1.5 x to within
  // the pipeline's fill and drain; and stage 0 holds 6 blocks' weights.
  ParallelLayout l;
  l.pp = 2, l.microBatches = 32;
  ParallelLayout uneven = l;
  uneven.stageLayers = {6, 2};
  StepResult even = step(ringOf(2, true), parallelOf(l)), skewed = step(ringOf(2, true), parallelOf(uneven));
  CHECK(double(skewed.iteration) / double(even.iteration) == doctest::Approx(1.5).epsilon(0.05));
  CHECK(double(skewed.memory.weights) == doctest::Approx(double(even.memory.weights) * 6 / 4).epsilon(0.01));
  // A split that does not fit the layout or the model is refused.
  uneven.stageLayers = {6, 1};
  CHECK_THROWS_WITH_AS(step(ringOf(2), parallelOf(uneven)), doctest::Contains("adds up to 7 blocks, but the model has 8"),
                       InputError);
  uneven.stageLayers = {4, 2, 2};
  CHECK_THROWS_WITH_AS(step(ringOf(2), parallelOf(uneven)), doctest::Contains("stage_layers gives 3 stages' blocks; the layout has 2"),
                       InputError);
}

TEST_CASE("context parallelism: each rank computes its share of the sequence and passes key-value blocks in a ring") {
  // cp 2 on 2 ranks: each rank computes 32 of the 64 tokens and half of the
  // causal attention, so every block's pass takes half as long (no
  // quantization on this device: its time is linear in tokens, and the
  // core's FLOPs are s^2 / cp).
  ModelSpec m = smallDecoderByOperations();
  DeviceModel d = ringOf(2).device;
  LayerCompute whole = layerCompute(m, d, {})[1], half = layerCompute(m, d, {1, 1, false, 2})[1];
  CHECK(double(half.forward.total()) == doctest::Approx(double(whole.forward.total()) / 2).epsilon(1e-6));
  CHECK(double(half.backward.core) == doctest::Approx(double(whole.backward.core) / 2).epsilon(1e-6));
  CHECK(half.forward.beforeCore > 0);
  // The ring: per block and micro-batch, one step forward of each rank's
  // keys and values (2 x 32 tokens x 64 x 4 bytes = 16 KiB) and, backward,
  // of them and their gradients (32 KiB); the gradients are all-reduced
  // over the 2 ranks (dp 1 x cp 2), a ring AllReduce sending n per rank.
  ParallelLayout l;
  l.cp = 2, l.microBatches = 3;
  TrainingSpec t = parallelOf(l, m);
  t.bucket = Bytes(m.gradientBytes());
  StepResult r = step(ringOf(2), t);
  const Bytes ringStep = 2 * 32 * 64 * 4;
  CHECK(r.bytesSent == 2 * (8 * 3 * 3 * ringStep + Bytes(m.gradientBytes())));
  CHECK(r.replicas == 1);
  CHECK(r.layout->text() == "tp1 cp2 pp1 dp1");
  // Each chunk of the core after the first waits for its block: on a slow
  // device the ring hides behind the first chunk; on a fast one it shows.
  Cluster slow = ringOf(2), fast = ringOf(2);
  slow.device.flops = 1e9;
  fast.device.flops = 1e16, fast.device.memoryBandwidth = 1ULL << 60;
  CHECK(step(slow, t).breakdown.contextParallel == 0);
  CHECK(step(fast, t).breakdown.contextParallel > 0);
  // ZeRO shards over the gradients' ranks, dp x cp: 4 ranks as cp 2 x dp 2.
  l.dp = 2, l.zero = 1;
  StepResult sharded = step(ringOf(4), parallelOf(l, m));
  CHECK(sharded.memory.optimizerState == Bytes(m.parameters()) * 8 / 4);
}

TEST_CASE("context parallelism that the model cannot run is refused") {
  ParallelLayout l;
  l.cp = 2;
  CHECK_THROWS_WITH_AS(step(ringOf(2), parallelOf(l)), doctest::Contains("cp 2 needs a transformer timed by its operations"),
                       InputError);
  ModelSpec odd = smallDecoderByOperations();
  odd.transformer->sequence = 66;
  l.cp = 2;
  CHECK_THROWS_WITH_AS(step(ringOf(2), parallelOf(l, odd)), doctest::Contains("66 tokens do not divide"), InputError);
  l.cp = 3, l.dp = 2;
  CHECK_THROWS_WITH_AS(step(ringOf(4), parallelOf(l, smallDecoderByOperations())),
                       doctest::Contains("tp x cp x pp x dp = 1 x 3 x 1 x 2 = 6 devices"), InputError);
}

// Past two full rounds of micro-batches the estimate walks 8 and 16 of them
// and extrapolates (parallel_step.cpp): each further micro-batch adds the
// same work. Checked against the estimates walked beside it (15 and 16
// micro-batches are walked, 17 and 48 extrapolated) and against the events
// and simulated time of the real step at 48.
TEST_CASE("a step of many micro-batches is estimated from two smaller ones, on the line they set") {
  const Cluster c = ringOf(8);
  auto withMicroBatches = [](int m, PipelineKind kind) {
    ParallelLayout l;
    l.pp = 4, l.dp = 2, l.microBatches = m, l.schedule = kind;
    if (kind == PipelineKind::Interleaved) l.virtualStages = 2;
    return parallelOf(l);
  };
  for (PipelineKind kind : {PipelineKind::OneFOneB, PipelineKind::Interleaved}) {
    CAPTURE(int(kind));
    auto estimate = [&](int m) { return estimateTrainingStep(c, withMicroBatches(m, kind), StepOptions{}); };
    const WorkEstimate e12 = estimate(12), e16 = estimate(16), e20 = estimate(20);
    // Every four micro-batches add the same work, walked or extrapolated.
    CHECK(relativeError(e20.events - e16.events, e16.events - e12.events) < 1e-9);
    CHECK(relativeError(e20.simulatedSeconds - e16.simulatedSeconds, e16.simulatedSeconds - e12.simulatedSeconds) < 0.05);
    const WorkEstimate e48 = estimate(48);
    const StepResult real = simulateTrainingStep(c, withMicroBatches(48, kind), StepOptions{});
    CHECK(e48.events > double(real.events) / 2);
    CHECK(e48.events < double(real.events) * 2);
    CHECK(e48.simulatedSeconds <= toSeconds(real.iteration) * 1.01); // a lower bound, as the walk's
    CHECK(e48.simulatedSeconds > toSeconds(real.iteration) / 2);
  }
}
