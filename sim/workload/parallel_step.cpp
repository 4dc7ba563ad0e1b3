#include "sim/workload/parallel_step.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "algorithms/core/compose.h"
#include "algorithms/core/registry.h"
#include "sim/executor/schedule_executor.h"
#include "sim/network/network_models.h"
#include "sim/run/simulate.h"
#include "sim/trace/trace_recorder.h"
#include "sim/workload/bucket_cuts.h"
#include "sim/workload/group_algorithm.h"
#include "sim/workload/layer_compute.h"
#include "sim/workload/parallel_step_schedule.h"
#include "sim/workload/step_breakdown.h"
#include "sim/workload/pipeline_order.h"
#include "sim/workload/replica_symmetry.h"

namespace collsim {

namespace {

using Kind = ProgramItem::Kind;

// The collectives a rank takes part in, by number: its TP group's three,
// its EP group's AllToAll, then those of its DP and expert-DP groups
// (gradient buckets by size, ZeRO's AllGathers).
enum FixedCollective { kTpAllReduce, kTpAllGather, kTpReduceScatter, kEpAllToAll, kFixedCollectives };

// The groups, by letter: TP, EP, DP, expert-DP.
constexpr char kTp = 't', kEp = 'e', kDp = 'd', kExpertDp = 'x';

enum class Pass { Forward, Recompute, Backward };

// The symbolic checker once per process for each registry algorithm and
// group shape: a plan builds the same groups' algorithms for every layout
// it estimates and runs (from several threads).
void verifyOnce(const AlgorithmEntry& entry, Collective op, int ranks, std::uint32_t elemSize, int perServer) {
  static std::mutex mutex;
  static std::set<std::tuple<Collective, std::string, int, std::uint32_t, int>> verified;
  const auto key = std::make_tuple(op, entry.name, ranks, elemSize, perServer);
  {
    std::lock_guard lock(mutex);
    if (verified.count(key)) return;
  }
  verifyAlgorithm(entry, op, ranks, elemSize, perServer);
  std::lock_guard lock(mutex);
  verified.insert(key);
}

// dp from the device count when the layout leaves it out (0).
// The layout a step runs: the training's, or plain data parallelism
// (every device a whole replica, tp = pp = 1).
TrainingSpec withLayout(const TrainingSpec& training) {
  TrainingSpec t = training;
  if (!t.parallel) {
    t.parallel.emplace();
    t.parallel->dp = 0;
    t.parallel->microBatches = t.accumulation;
  }
  return t;
}

ParallelLayout resolvedLayout(ParallelLayout l, const Cluster& cluster) {
  if (l.dp == 0) {
    const int inner = l.tp * l.cp * l.pp;
    if (cluster.ranks() % inner != 0)
      throw InputError(std::string(l.cp > 1 ? "tp x cp x pp = " : "tp x pp = ") + std::to_string(inner) +
                       " does not divide " + cluster.name + "'s " + std::to_string(cluster.ranks()) + " devices");
    l.dp = cluster.ranks() / inner;
  }
  return l;
}

// What one step's programs may hold, so that building them (to simulate or
// only to estimate) stays within memory by construction: the passes over
// layers of all micro-batches (a few program items each), and the gradient
// buckets (every micro-batch's under ZeRO 2 and 3).
constexpr double kMaxLayerPasses = 4e6;
constexpr double kMaxBuckets = 1e6;

void validateLayout(const ParallelLayout& l, const Cluster& cluster, const TrainingSpec& training) {
  const ModelSpec& model = training.model;
  auto n = [](auto v) { return std::to_string(v); };
  if (l.devices() != cluster.ranks())
    throw InputError((l.cp > 1 ? "tp x cp x pp x dp = " + n(l.tp) + " x " + n(l.cp) : "tp x pp x dp = " + n(l.tp)) +
                     " x " + n(l.pp) + " x " + n(l.dp) + " = " + n(l.devices()) + " devices, but " + cluster.name +
                     " has " + n(cluster.ranks()));
  const TransformerShape* t = model.transformer ? &*model.transformer : nullptr;
  if (l.cp > 1) {
    // Ring attention: the fused kernel on each key-value block as it passes
    // (Megatron-LM's through Transformer Engine), and 2 cp chunks of the
    // sequence (each rank the i-th and the (2 cp - 1 - i)-th, so that the
    // causal work is even).
    if (!t || !t->flashAttention || !timedByOperations(model))
      throw InputError("cp " + n(l.cp) + " needs a transformer timed by its operations with fused attention "
                       "(attention: flash): context parallelism passes key-value blocks between the kernel's calls");
    if (t->sequence % std::uint64_t(2 * l.cp) != 0)
      throw InputError("cp " + n(l.cp) + " cuts the sequence into 2 cp = " + n(2 * l.cp) + " chunks, but " +
                       n(t->sequence) + " tokens do not divide");
    if (l.ep > 1) throw InputError("cp with expert parallelism is not modelled yet");
  }
  if (!t && (l.tp > 1 || l.pp > 1 || l.sequenceParallel))
    throw InputError("tp and pp need a model given by transformer: {...} (its hidden size and sequence set the "
                     "traffic between devices)");
  if (t && t->heads % l.tp != 0) throw InputError("tp " + n(l.tp) + " does not divide the model's " + n(t->heads) + " heads");
  if (t && t->layers < l.pp)
    throw InputError("pp " + n(l.pp) + " is more stages than the model's " + n(t->layers) + " layers");
  if (!l.stageLayers.empty()) {
    const int chunks = l.schedule == PipelineKind::Interleaved && l.pp > 1 ? l.virtualStages : 1;
    const int blocks = t ? t->layers : int(model.layers.size());
    int sum = 0;
    for (int c : l.stageLayers) sum += c;
    if (int(l.stageLayers.size()) != l.pp * chunks)
      throw InputError("stage_layers gives " + n(l.stageLayers.size()) + " stages' " + (t ? "blocks" : "layers") +
                       "; the layout has " + n(l.pp * chunks) + (chunks > 1 ? " (pp x virtual_stages)" : ""));
    if (sum != blocks)
      throw InputError("stage_layers adds up to " + n(sum) + " " + (t ? "blocks" : "layers") + ", but the model has " +
                       n(blocks));
  }
  if (l.schedule == PipelineKind::Interleaved && l.pp > 1) {
    if (l.virtualStages < 2) throw InputError("the interleaved schedule needs virtual_stages of 2 or more");
    if (t && t->layers < l.pp * l.virtualStages)
      throw InputError("pp x virtual_stages = " + n(l.pp * l.virtualStages) + " is more model chunks than the model's " +
                       n(t->layers) + " layers");
    if (l.microBatches % l.pp != 0)
      throw InputError("the interleaved schedule runs micro-batches in groups of pp: " + n(l.microBatches) +
                       " is not a multiple of " + n(l.pp));
  }
  if (l.ep > 1) {
    if (!t || t->experts == 1) throw InputError("ep " + n(l.ep) + " needs a model with experts (transformer: experts)");
    if (t->experts % l.ep != 0) throw InputError("ep " + n(l.ep) + " does not divide the model's " + n(t->experts) + " experts");
    if (l.dp % l.ep != 0) throw InputError("ep " + n(l.ep) + " does not divide dp " + n(l.dp));
    if (l.zero == 3) throw InputError("zero 3 with expert parallelism is not modelled yet");
  }
  // Forward, recomputation and backward of every layer, for every micro-batch.
  const double passes = 3.0 * double(l.microBatches) * double(model.layers.size());
  if (passes > kMaxLayerPasses)
    throw InputError(n(l.microBatches) + " micro-batches of " + n(model.layers.size()) +
                     " layers are more layer passes than collsim simulates in a step (" + n(std::int64_t(kMaxLayerPasses)) +
                     "); take fewer micro-batches (a larger micro-batch, or more data parallelism)");
  const Bytes bucket = std::max<Bytes>(training.bucket, 1);
  const double buckets = double(model.gradientBytes()) / double(l.tp) / double(bucket) *
                         (l.zero >= 2 ? double(l.microBatches) : 1.0);
  if (l.dp > 1 && buckets > kMaxBuckets)
    throw InputError("a bucket of " + formatBytes(training.bucket) + " cuts a step's gradients into more than " +
                     n(std::int64_t(kMaxBuckets)) + " buckets; choose a larger training.bucket");
}

class ParallelStepBuilder {
public:
  ParallelStepBuilder(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options)
      : cluster_(cluster), training_(training), model_(training.model), layout_(resolvedLayout(*training.parallel, cluster)),
        placement_(layout_), options_(options) {
    validateLayout(layout_, cluster_, training_);
    chunks_ = layout_.schedule == PipelineKind::Interleaved && layout_.pp > 1 ? layout_.virtualStages : 1;
    stages_ = splitLayers(model_, layout_.pp * chunks_, layout_.stageLayers); // chunk k of stage s: stages_[k pp + s]
    layers_ = layerCompute(model_, cluster.device, {layout_.tp, layout_.ep, layout_.sequenceParallel, layout_.cp});
    if (model_.transformer) {
      const TransformerShape& t = *model_.transformer;
      // A rank's share of the sequence: what its TP collectives and pipeline sends carry.
      activationBytes_ = Bytes(model_.microBatch) * t.sequence / Bytes(layout_.cp) * t.hidden * model_.precision.weights;
      // The key and value of a rank's share, of its TP rank's heads: what
      // each step of the ring passes forward (backward: their gradients too).
      ringBytes_ = 2 * Bytes(model_.microBatch) * t.sequence / Bytes(layout_.cp) * t.kvDim() / Bytes(layout_.tp) *
                   model_.precision.weights;
      // Each token goes to top_k experts; with sequence parallelism each TP
      // rank dispatches its share of the tokens.
      allToAllBytes_ = activationBytes_ * Bytes(model_.transformer->topK) /
                       Bytes(layout_.sequenceParallel ? layout_.tp : 1);
    }
  }

  ParallelStepPlan plan() {
    ParallelStepPlan p;
    p.ranks = cluster_.ranks();
    p.bucketsInFlight = training_.pipeline;
    sized_.clear(), bucketCollectives_.clear();
    for (int s = 0; s < layout_.pp; ++s) p.stages.push_back(stageProgram(s));
    fixedUsed_.fill(false);
    for (const StageProgram& stage : p.stages)
      for (const auto* items : {&stage.items, &stage.gathers, &stage.side})
        for (const ProgramItem& item : *items)
          if (item.kind == ProgramItem::Kind::Collective && item.collective < kFixedCollectives)
            fixedUsed_[std::size_t(item.collective)] = true;
    // Looked up for every step: each rank's coordinates and neighbours once.
    ranks_.clear();
    for (int r = 0; r < cluster_.ranks(); ++r) {
      LayoutCoordinates c = placement_.of(r);
      ranks_.push_back({c.pp, -1, -1, -1, -1,
                        {placement_.tpGroupIndex(r), placement_.epGroupIndex(r), placement_.gradientGroupIndex(r),
                         placement_.expertDpGroupIndex(r)}});
      // Interleaved: the last stage's chunk k feeds the first stage's chunk k + 1.
      const bool wrap = chunks_ > 1;
      if (c.pp + 1 < layout_.pp || wrap)
        ranks_.back().next = placement_.rank({c.tp, c.dp, (c.pp + 1) % layout_.pp, c.cp});
      if (c.pp > 0 || wrap)
        ranks_.back().previous = placement_.rank({c.tp, c.dp, (c.pp + layout_.pp - 1) % layout_.pp, c.cp});
      if (layout_.cp > 1) { // the ring of the rank's CP group
        ranks_.back().ringNext = placement_.rank({c.tp, c.dp, c.pp, (c.cp + 1) % layout_.cp});
        ranks_.back().ringPrevious = placement_.rank({c.tp, c.dp, c.pp, (c.cp + layout_.cp - 1) % layout_.cp});
      }
    }
    p.stageOf = [this](int rank) { return ranks_[std::size_t(rank)].stage; };
    p.neighbour = [this](int rank, int direction) {
      const RankInfo& i = ranks_[std::size_t(rank)];
      return direction > 0 ? i.next : i.previous;
    };
    p.ring = [this](int rank, int direction) {
      const RankInfo& i = ranks_[std::size_t(rank)];
      return direction > 0 ? i.ringNext : i.ringPrevious;
    };
    p.collective = [this](int rank, int c) { return collective(rank, c); };
    p.itemName = [this](const ProgramItem& item) -> std::string {
      static const char* const passes[] = {"forward", "recompute", "backward"};
      if (item.layer >= 0) return std::string(passes[item.pass]) + " " + model_.layers[std::size_t(item.layer)].name;
      return item.part == StepPart::Optimizer ? "optimizer" : "compute";
    };
    return p;
  }

  const ParallelLayout& layout() const { return layout_; }
  const RankPlacement& placement() const { return placement_; }
  // The collectives `rank` runs (once plan() has numbered them): the fixed
  // ones the stage programs use, on its TP and EP groups, and every size
  // on its gradient group and its experts'.
  std::vector<GroupCollective> groupCollectives(int rank) {
    using Group = GroupCollective::Group;
    std::vector<GroupCollective> out;
    for (int c = 0; c < kFixedCollectives; ++c) {
      if (!fixedUsed_[std::size_t(c)]) continue;
      const Schedule* s = collective(rank, c);
      out.push_back({s, algorithmOf_.at(s), elemSize(), c == kEpAllToAll ? Group::Ep : Group::Tp});
    }
    for (std::size_t i = 0; i < sized_.size(); ++i) {
      const char group = std::get<2>(sized_[i]);
      if (group != kDp && group != kExpertDp) continue;
      const Schedule* s = collective(rank, kFixedCollectives + int(i));
      out.push_back({s, algorithmOf_.at(s), elemSize(), group == kExpertDp ? Group::ExpertDp : Group::Gradient});
    }
    return out;
  }
  // A bucket of `rank`'s: its bytes and its algorithm.
  std::pair<Bytes, std::string> bucket(int rank, const StageProgram::Bucket& b) {
    return {std::get<1>(sized_[std::size_t(b.collective - kFixedCollectives)]),
            algorithmOf_.at(collective(rank, b.collective))};
  }
  const std::vector<LayerCompute>& layers() const { return layers_; }
  Time optimizer(int stage) const { return optimizer_[std::size_t(stage)]; }
  // A stage's compute over the step by kind of kernel: its layers' passes
  // over every micro-batch, and its optimizer.
  ClassSeconds classes(int stage) const {
    ClassSeconds c;
    for (int k = 0; k < chunks_; ++k) {
      const LayerRange range = stages_[std::size_t(k * layout_.pp + stage)];
      for (std::size_t i = range.first; i < range.end; ++i) c += layers_[i].classes;
    }
    c = c * double(layout_.microBatches);
    c.memory += toSeconds(optimizer(stage));
    return c;
  }

private:
  static int groupKind(char group) { return group == kTp ? 0 : group == kEp ? 1 : group == kDp ? 2 : 3; }

  // The rank's collective number `c` on its group (cached per group).
  const Schedule* collective(int rank, int c) {
    char group = c < kEpAllToAll ? kTp : c == kEpAllToAll ? kEp : std::get<2>(sized_[std::size_t(c - kFixedCollectives)]);
    int kind = groupKind(group);
    std::size_t index = std::size_t(ranks_[std::size_t(rank)].group[kind]);
    auto& cache = cache_[kind];
    if (cache.size() <= index) cache.resize(index + 1);
    if (cache[index].size() <= std::size_t(c)) cache[index].resize(std::size_t(c) + 1, nullptr);
    if (!cache[index][std::size_t(c)]) cache[index][std::size_t(c)] = buildCollective(rank, c, group);
    return cache[index][std::size_t(c)];
  }

  const Schedule* buildCollective(int rank, int c, char group) {
    static constexpr Collective fixedOps[] = {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                                              Collective::AllToAll};
    Collective op = c < kFixedCollectives ? fixedOps[c] : std::get<0>(sized_[std::size_t(c - kFixedCollectives)]);
    Bytes bytes = c < kEpAllToAll    ? activationBytes_
                  : c == kEpAllToAll ? allToAllBytes_
                                     : std::get<1>(sized_[std::size_t(c - kFixedCollectives)]);
    int index = ranks_[std::size_t(rank)].group[groupKind(group)];
    std::vector<int> members = group == kTp   ? placement_.tpGroup(rank)
                               : group == kEp ? placement_.epGroup(rank)
                               : group == kDp ? placement_.gradientGroup(rank)
                                              : placement_.expertDpGroup(rank);
    return groupSchedule(op, bytes, group, index, members, bucketCollectives_.count(c) > 0);
  }

  // The number of a DP (or expert-DP) group's collective of `bytes`.
  int sizedCollective(Collective op, Bytes bytes, char group = kDp) {
    auto key = std::make_tuple(op, bytes, group);
    auto it = std::find(sized_.begin(), sized_.end(), key);
    if (it != sized_.end()) return kFixedCollectives + int(it - sized_.begin());
    sized_.push_back(key);
    return kFixedCollectives + int(sized_.size()) - 1;
  }

  // The algorithm of a group's collective, and the group's members per
  // server when it is hierarchical (its CollectiveSpec::devicesPerServer).
  // A gradient bucket's AllReduce under `auto` takes the selector's rule
  // for its size when the scenario gives rules.
  std::pair<const AlgorithmEntry*, int> algorithm(Collective op, const std::vector<int>& members, Bytes bytes,
                                                  bool bucket) {
    const int groupSize = int(members.size());
    std::string name = options_.algorithm != "auto" ? options_.algorithm
                       : bucket && op == Collective::AllReduce && options_.pickAlgorithm
                           ? options_.pickAlgorithm(bytes)
                           : hcclGroupAlgorithm(cluster_, op, members);
    const bool hierarchical = name.find(':') != std::string::npos;
    const int perServer = hierarchical ? membersPerServer(cluster_, members) : 0;
    if (hierarchical && (perServer == 0 || perServer == groupSize))
      throw InputError(name + " needs a group with as many members on each of several servers");
    auto key = std::make_tuple(op, name, groupSize, perServer);
    if (auto it = entries_.find(key); it != entries_.end()) return {&it->second, perServer};
    std::optional<AlgorithmEntry> e = findAlgorithm(op, name);
    if (!e) throw InputError("no algorithm '" + name + "' for " + collectiveName(op) + " (try ring)");
    CollectiveSpec spec{op, groupSize, std::uint64_t(groupSize), elemSize(), 0, perServer};
    if (std::string why = e->unsupported ? e->unsupported(spec) : ""; !why.empty())
      throw InputError(name + " cannot run a " + collectiveName(op) + " on a group of " + std::to_string(groupSize) +
                       " ranks: " + why);
    if (options_.verify) verifyOnce(*e, op, groupSize, elemSize(), perServer);
    return {&entries_.emplace(key, *e).first->second, perServer};
  }

  // A group's collective, in HCCL's loops over its communicator buffer
  // when larger. Only a gradient bucket's may run on several streams: it
  // has streams of its own, where the programs' collectives run inline.
  const Schedule* groupSchedule(Collective op, Bytes bytes, char dimension, int group, const std::vector<int>& members,
                                bool bucket) {
    auto key = std::make_tuple(op, bytes, dimension, group);
    if (auto it = built_.find(key); it != built_.end()) return it->second.get();
    auto [algo, perServer] = algorithm(op, members, bytes, bucket);
    const AlgorithmEntry& entry = *algo;
    const Bytes loop = options_.bufferLoops && options_.hcclBufferSize > 0
                           ? std::max<Bytes>(options_.hcclBufferSize / elemSize(), 1) * elemSize()
                           : std::max<Bytes>(bytes, 1);
    std::vector<SchedulePtr> loops;
    for (Bytes done = 0; done < bytes || loops.empty(); done += loop) {
      CollectiveSpec spec{op, int(members.size()), std::min(loop, bytes - done) / elemSize(), elemSize(), 0, perServer};
      loops.push_back(entry.build(viewOf(dimension, group, members).over(spec.count), spec));
    }
    const int streams = loops.front()->streamCount();
    if (streams > 1 && !bucket)
      throw InputError(entry.name + " runs on several streams; a parallel layout's " + collectiveName(op) +
                       " runs inline between the compute and needs a single-stream algorithm");
    if (streams > 1 && loops.size() > 1)
      throw InputError(entry.name + " runs on several streams and cannot loop over HCCL's buffer (" + formatBytes(loop) +
                       "); raise hccl.buffer_size (HCCL_BUFFSIZE) to at least " + formatBytes(bytes) +
                       " or use smaller buckets");
    SchedulePtr s = loops.size() == 1 ? std::move(loops.front()) : std::make_unique<SequenceSchedule>(std::move(loops));
    algorithmOf_[s.get()] = entry.name;
    return (built_[key] = std::move(s)).get();
  }

  // A group's members once, shared by its collectives of every size (each
  // bucket's view had its own table: at 16,384 ranks a DP group's is 64 KiB,
  // 115 MB over a plan's buckets).
  const GroupView& viewOf(char dimension, int group, const std::vector<int>& members) {
    auto key = std::make_pair(dimension, group);
    auto it = views_.find(key);
    if (it == views_.end()) it = views_.emplace(key, GroupView(members, cluster_.ranks(), 0, 0, elemSize())).first;
    return it->second;
  }

  std::uint32_t elemSize() const { return model_.precision.gradients; }

  void add(StageProgram& p, Kind kind, StepPart part, Time duration = 0, int collective = -1, Bytes bytes = 0) {
    if (kind == Kind::Compute && cutNext_ != cutEnd_) return computeFillingBuckets(p, part, duration);
    p.items.push_back(labelled({kind, part, duration, collective, bytes}));
  }
  // An item of the layer pass at hand, named for a trace.
  ProgramItem labelled(ProgramItem item) const {
    item.layer = labelLayer_, item.pass = labelPass_;
    return item;
  }

  // Gradient buckets in the order backward fills them (bucket_cuts.h),
  // per micro-batch whose gradients are reduced: they accumulate over the
  // micro-batches and go once, after the last; under ZeRO 2 and 3 a device
  // keeps only its shard of the gradients, so every micro-batch's are
  // reduce-scattered as its backward makes them (DeepSpeed's ZeRO-2,
  // FSDP's FULL_SHARD).
  void planBucketCuts(int stage, const std::vector<PipelineTask>& tasks) {
    cuts_.clear(), cutCursor_.clear(), lastLayer_.clear();
    const std::array<bool, 2> reduced{layout_.gradientReplicas() > 1, layout_.dp / layout_.ep > 1};
    const Bytes bucket = std::max<Bytes>(training_.bucket / elemSize(), 1) * elemSize();
    for (int mb = layout_.zero >= 2 ? 0 : layout_.microBatches - 1; mb < layout_.microBatches; ++mb) {
      std::vector<LayerGradients> order;
      for (const PipelineTask& task : tasks) {
        if (task.forward || task.microBatch != mb) continue;
        const LayerRange range = stages_[std::size_t(task.chunk * layout_.pp + stage)];
        for (std::size_t i = range.end; i-- > range.first;) {
          DeviceParameters d = deviceParameters(model_, layout_, i);
          order.push_back({i, {d.dense * elemSize(), d.experts * elemSize()}});
        }
      }
      if (order.empty()) continue;
      lastLayer_[mb] = order.back().layer;
      cuts_[mb] = cutBuckets(order, bucket, reduced);
      cutCursor_[mb] = 0;
    }
  }

  // Layer `layer`'s backward on micro-batch `mb` is next: with overlap the
  // buckets it fills are placed in its compute (its gradients appear
  // evenly over the compute of its backward, layer_compute.h's total).
  void beginBucketCuts(int mb, std::size_t layer) {
    auto it = cuts_.find(mb);
    if (it == cuts_.end()) return;
    std::size_t& at = cutCursor_[mb];
    const std::size_t from = at;
    while (at < it->second.size() && it->second[at].layer == layer) ++at;
    if (!training_.overlap) return;
    cutNext_ = it->second.data() + from, cutEnd_ = it->second.data() + at;
    cutElapsed_ = 0, cutPass_ = layers_[layer].backward.total();
  }
  // Compute of a backward pass that fills buckets: cut where each fills.
  void computeFillingBuckets(StageProgram& p, StepPart part, Time duration) {
    const Time end = cutElapsed_ + duration;
    Time at = cutElapsed_;
    for (; cutNext_ != cutEnd_; ++cutNext_) {
      const Time cut = Time(std::llround(cutNext_->fraction * double(cutPass_)));
      if (cut >= end) break; // in a later piece, or at the pass's end
      if (cut > at) p.items.push_back(labelled({Kind::Compute, part, cut - at})), at = cut;
      addBucket(p, *cutNext_, int(p.items.size()) - 1);
    }
    cutElapsed_ = end;
    if (end > at) p.items.push_back(labelled({Kind::Compute, part, end - at}));
  }
  // After the layer's backward: the buckets it has not placed yet are
  // ready now; without overlap, after the micro-batch's last layer, all of them.
  void endBucketCuts(StageProgram& p, int mb, std::size_t layer) {
    for (; cutNext_ != cutEnd_; ++cutNext_) addBucket(p, *cutNext_, int(p.items.size()) - 1);
    cutNext_ = cutEnd_ = nullptr;
    if (training_.overlap || !lastLayer_.count(mb) || lastLayer_[mb] != layer) return;
    for (const BucketCut& c : cuts_[mb]) addBucket(p, c, int(p.items.size()) - 1);
  }

  // A gradient bucket, copied into its buffer and back (read and write at
  // memory speed) when the framework does.
  void addBucket(StageProgram& p, const BucketCut& cut, int readyAfterItem) {
    const Collective op = layout_.zero > 0 ? Collective::ReduceScatter : Collective::AllReduce;
    const Bytes bytes = cut.bytes;
    const int c = sizedCollective(op, bytes, cut.group == 0 ? kDp : kExpertDp);
    bucketCollectives_.insert(c);
    const Time copy = training_.bucketCopy ? serializationTime(2 * bytes, cluster_.device.memoryBandwidth) : 0;
    p.buckets.push_back({c, readyAfterItem, copy});
  }

  // ZeRO 3: the layer's weights gathered on the DP group before its pass,
  // by the gather program one layer pass ahead: it starts gathering this
  // layer once the main program has begun the previous pass. Without
  // prefetch (training.overlap.param_prefetch), the main program gathers
  // them itself before the pass, and computes nothing meanwhile.
  void gatherWeights(StageProgram& p, std::size_t layer) {
    const int replicas = layout_.gradientReplicas();
    if (layout_.zero < 3 || replicas == 1) return;
    std::uint64_t shard = model_.layers[layer].parameters / std::uint64_t(layout_.tp) / std::uint64_t(replicas);
    if (shard == 0) return;
    const int gather =
        sizedCollective(Collective::AllGather, shard * Bytes(replicas) * model_.precision.weights);
    if (!training_.paramPrefetch) return add(p, Kind::Collective, StepPart::DataParallel, 0, gather);
    ProgramItem wait{Kind::WaitFor, StepPart::DataParallel};
    wait.waitProgram = 0, wait.waitItem = previousPassStart_ - 1;
    p.gathers.push_back(wait);
    p.gathers.push_back({Kind::Collective, StepPart::DataParallel, 0, gather});
    ProgramItem ready{Kind::WaitFor, StepPart::DataParallel};
    ready.waitProgram = 1, ready.waitItem = int(p.gathers.size()) - 1;
    previousPassStart_ = int(p.items.size());
    p.items.push_back(ready);
  }

  // A layer's forward, recomputation or backward on one micro-batch: a
  // block's attention and FFN, each between its TP collectives; a MoE FFN
  // under expert parallelism between the AllToAlls that dispatch the tokens
  // to their experts and combine the results (backward: their gradients,
  // the same way). Selective recomputation repeats the attention core
  // alone, with no collectives; full recomputation the whole forward.
  void layerPass(StageProgram& p, std::size_t layer, Pass pass) {
    labelLayer_ = std::int32_t(layer), labelPass_ = std::uint8_t(pass);
    layerPassItems(p, layer, pass);
    labelLayer_ = -1;
  }
  void layerPassItems(StageProgram& p, std::size_t layer, Pass pass) {
    const LayerCompute& t = layers_[layer];
    const PassPieces& time = pass == Pass::Forward ? t.forward : pass == Pass::Backward ? t.backward : t.recompute;
    if (pass == Pass::Recompute && time.total() == 0) return;
    // ZeRO 3 gathers the weights before a recomputation, which its backward then uses.
    if (pass != Pass::Backward || t.recompute.total() == 0) gatherWeights(p, layer);
    if (pass == Pass::Forward) waitForUpdatedWeights(p, layer);
    const bool tp = layout_.tp > 1, moe = layout_.ep > 1, ring = t.block && layout_.cp > 1 && time.core > 0;
    const bool collectives = t.block && (tp || moe) && (pass != Pass::Recompute || t.recomputeCollectives);
    Piece attention{time.attention, false, time.attentionWeightGradient, time.beforeCore, ring ? time.core : 0,
                    pass == Pass::Backward ? 2 * ringBytes_ : ringBytes_};
    if (!collectives && !ring) return add(p, Kind::Compute, StepPart::Compute, time.total());
    if (!collectives) {
      computeOf(p, attention, 0, attention.compute);
      return add(p, Kind::Compute, StepPart::Compute, time.rest);
    }
    Time ffn = moe ? Time(double(time.rest) * layout_.expertImbalance) : time.rest; // the busiest device's experts
    Piece pieces[2] = {attention, {ffn, true, time.restWeightGradient}};
    if (pass == Pass::Backward) std::swap(pieces[0], pieces[1]);
    const bool sp = tp && layout_.sequenceParallel, pipelined = sp && training_.tpCommOverlap;
    for (const Piece& piece : pieces) {
      const bool experts = moe && piece.experts;
      // What of the compute runs beside a TP collective: pipelined in tp
      // chunks (tp-comm-overlap: the GEMM starts on its own chunk while the
      // AllGather brings the rest, and the ReduceScatter starts on all but
      // the last chunk); or a backward piece's weight gradient beside the
      // collective of its input gradient.
      Time head = pipelined ? piece.compute / Time(layout_.tp) : 0, tail = 0;
      if (tp && !experts && pipelined) tail = piece.compute / Time(layout_.tp);
      else if (tp && !experts && pass == Pass::Backward && training_.tpWgradOverlap) tail = piece.weightGradient;
      if (sp && !pipelined) add(p, Kind::Collective, StepPart::TensorParallel, 0, kTpAllGather);
      if (experts) add(p, Kind::Collective, StepPart::ExpertParallel, 0, kEpAllToAll);
      if (head > 0) {
        beside(p, kTpAllGather, StepPart::TensorParallel);
        computeOf(p, piece, 0, head);
        waitBeside(p, StepPart::TensorParallel);
      }
      computeOf(p, piece, head, piece.compute - tail);
      if (experts) add(p, Kind::Collective, StepPart::ExpertParallel, 0, kEpAllToAll);
      if (!tp) continue;
      const int closing = sp ? kTpReduceScatter : kTpAllReduce;
      if (tail == 0) {
        add(p, Kind::Collective, StepPart::TensorParallel, 0, closing);
        continue;
      }
      beside(p, closing, StepPart::TensorParallel);
      computeOf(p, piece, piece.compute - tail, piece.compute);
      waitBeside(p, StepPart::TensorParallel);
    }
  }

  // A piece of a layer's pass, and what in it runs beside collectives.
  struct Piece {
    Time compute;
    bool experts;
    Time weightGradient; // backward: the column-parallel GEMM's, which the piece ends with
    // CP: the attention core at [beforeCore, beforeCore + core) in cp
    // chunks, the first on the rank's own key-value block, each other once
    // the ring has brought the next block (ringBytes a step).
    Time beforeCore = 0, core = 0;
    Bytes ringBytes = 0;
  };

  // The compute of [from, to) of a piece. Under context parallelism the
  // ring starts beside it once the piece has computed its keys and values
  // (at beforeCore), and each chunk of the core after the first waits for
  // its step of the ring.
  void computeOf(StageProgram& p, const Piece& piece, Time from, Time to) {
    Time at = from;
    if (piece.core > 0) {
      const int cp = layout_.cp;
      for (int k = 0; k < cp; ++k) {
        const Time cut = piece.beforeCore + piece.core * Time(k) / Time(cp);
        if (cut < from || cut >= to) continue;
        add(p, Kind::Compute, StepPart::Compute, cut - at);
        at = cut;
        if (k == 0) { // the ring starts: its cp - 1 steps, one after another
          ProgramItem start{Kind::WaitFor, StepPart::ContextParallel};
          start.waitProgram = ParallelStepSchedule::kProgramStream, start.waitItem = int(p.items.size()) - 1;
          p.side.push_back(start);
          ringStart_ = int(p.side.size());
          for (int step = 1; step < cp; ++step)
            p.side.push_back({Kind::RingShift, StepPart::ContextParallel, 0, -1, piece.ringBytes});
        } else { // chunk k waits for the k-th block
          ProgramItem block{Kind::WaitFor, StepPart::ContextParallel};
          block.waitProgram = ParallelStepSchedule::kSideStream, block.waitItem = ringStart_ + k - 1;
          p.items.push_back(block);
        }
      }
    }
    if (to > at) add(p, Kind::Compute, StepPart::Compute, to - at);
  }

  // Starts `collective` on the side program once the main program has done
  // what it has so far; waitBeside makes the main program wait for it.
  void beside(StageProgram& p, int collective, StepPart part) {
    ProgramItem start{Kind::WaitFor, part};
    start.waitProgram = ParallelStepSchedule::kProgramStream, start.waitItem = int(p.items.size()) - 1;
    p.side.push_back(start);
    p.side.push_back({Kind::Collective, part, 0, collective});
  }
  void waitBeside(StageProgram& p, StepPart part) {
    ProgramItem done{Kind::WaitFor, part};
    done.waitProgram = ParallelStepSchedule::kSideStream, done.waitItem = int(p.side.size()) - 1;
    p.items.push_back(done);
  }

  // ZeRO 1-2 with param_gather: each layer's updated weights, gathered on
  // the gather program from the step's start (the last step's optimizer, in
  // a steady state), are awaited before the layer's first forward.
  void gatherUpdatedWeights(StageProgram& p, const std::vector<std::size_t>& layers) {
    gatheredAt_.assign(model_.layers.size(), -1);
    if (!training_.paramGatherOverlap || (layout_.zero != 1 && layout_.zero != 2)) return;
    const Precision& x = model_.precision;
    for (std::size_t i : layers) {
      DeviceParameters d = deviceParameters(model_, layout_, i);
      auto gather = [&](std::uint64_t parameters, int replicas, char group) {
        if (replicas > 1 && parameters >= std::uint64_t(replicas)) {
          p.gathers.push_back({Kind::Collective, StepPart::DataParallel, 0,
                               sizedCollective(Collective::AllGather,
                                               parameters / std::uint64_t(replicas) * Bytes(replicas) * x.weights, group)});
          gatheredAt_[i] = int(p.gathers.size()) - 1;
        }
      };
      gather(d.dense, layout_.gradientReplicas(), kDp);
      gather(d.experts, layout_.dp / layout_.ep, kExpertDp);
    }
  }
  void waitForUpdatedWeights(StageProgram& p, std::size_t layer) {
    if (gatheredAt_.empty() || gatheredAt_[layer] < 0) return;
    ProgramItem ready{Kind::WaitFor, StepPart::DataParallel};
    ready.waitProgram = ParallelStepSchedule::kGatherStream, ready.waitItem = gatheredAt_[layer];
    p.items.push_back(ready);
    gatheredAt_[layer] = -1; // the first forward waits; the weights stay
  }

  StageProgram stageProgram(int stage) {
    StageProgram p;
    previousPassStart_ = 0;
    const Bytes p2p = activationBytes_ / Bytes(layout_.sequenceParallel ? layout_.tp : 1);
    std::vector<std::size_t> layers; // the stage's, in forward order
    for (int k = 0; k < chunks_; ++k)
      for (std::size_t i = stages_[std::size_t(k * layout_.pp + stage)].first; i < stages_[std::size_t(k * layout_.pp + stage)].end; ++i)
        layers.push_back(i);
    gatherUpdatedWeights(p, layers);
    const std::vector<PipelineTask> tasks = stageOrder(layout_.schedule, layout_.pp, layout_.microBatches, stage, chunks_);
    planBucketCuts(stage, tasks);
    for (const PipelineTask& task : tasks) {
      const LayerRange range = stages_[std::size_t(task.chunk * layout_.pp + stage)];
      const bool first = stage == 0 && task.chunk == 0, last = stage == layout_.pp - 1 && task.chunk == chunks_ - 1;
      if (task.forward) {
        if (!first) add(p, Kind::ReceivePrevious, StepPart::Pipeline, 0, -1, p2p);
        for (std::size_t i = range.first; i < range.end; ++i) layerPass(p, i, Pass::Forward);
        if (!last) add(p, Kind::SendNext, StepPart::Pipeline, 0, -1, p2p);
      } else {
        if (!last) add(p, Kind::ReceiveNext, StepPart::Pipeline, 0, -1, p2p);
        for (std::size_t i = range.end; i-- > range.first;) {
          layerPass(p, i, Pass::Recompute);
          beginBucketCuts(task.microBatch, i);
          layerPass(p, i, Pass::Backward);
          endBucketCuts(p, task.microBatch, i);
        }
        if (!first) add(p, Kind::SendPrevious, StepPart::Pipeline, 0, -1, p2p);
      }
    }
    const Precision& x = model_.precision;
    const int expertReplicas = layout_.dp / layout_.ep;
    DeviceParameters stageParameters;
    for (std::size_t i : layers) {
      DeviceParameters d = deviceParameters(model_, layout_, i);
      stageParameters.dense += d.dense, stageParameters.experts += d.experts;
    }
    if (!p.buckets.empty()) add(p, Kind::WaitBuckets, StepPart::DataParallel);
    // The optimizer at memory speed, on 1/dp of the state under ZeRO (the
    // experts': 1 / (dp / ep)).
    const bool sharded = layout_.zero > 0;
    std::uint64_t updated = stageParameters.dense / std::uint64_t(sharded ? layout_.gradientReplicas() : 1) +
                            stageParameters.experts / std::uint64_t(sharded ? expertReplicas : 1);
    optimizer_.push_back(serializationTime(x.optimizerTraffic(updated), cluster_.device.memoryBandwidth));
    add(p, Kind::Compute, StepPart::Optimizer, optimizer_.back());
    if ((layout_.zero == 1 || layout_.zero == 2) && !training_.paramGatherOverlap) { // the updated weights, gathered again
      auto gather = [&](std::uint64_t parameters, int replicas, char group) {
        if (replicas > 1 && parameters >= std::uint64_t(replicas))
          add(p, Kind::Collective, StepPart::DataParallel, 0,
              sizedCollective(Collective::AllGather, parameters / std::uint64_t(replicas) * Bytes(replicas) * x.weights, group));
      };
      gather(stageParameters.dense, layout_.gradientReplicas(), kDp);
      gather(stageParameters.experts, expertReplicas, kExpertDp);
    }
    return p;
  }

  const Cluster& cluster_;
  const TrainingSpec& training_;
  const ModelSpec& model_;
  ParallelLayout layout_;
  RankPlacement placement_;
  const StepOptions& options_;
  int chunks_ = 1;                 // model chunks per device (interleaved)
  std::vector<LayerRange> stages_; // per chunk of a stage
  std::vector<LayerCompute> layers_;
  Bytes activationBytes_ = 0;
  std::vector<Time> optimizer_;
  int previousPassStart_ = 0; // ZeRO 3: the main program's item where the last layer pass began
  int ringStart_ = 0;         // CP: the side program's first ring step of the attention core at hand
  std::vector<int> gatheredAt_; // param_gather: per layer, its gather's item (-1: none, or awaited)
  Bytes allToAllBytes_ = 0;
  Bytes ringBytes_ = 0; // CP: one forward step of the ring
  std::vector<std::tuple<Collective, Bytes, char>> sized_; // collectives kFixedCollectives, ...
  std::array<bool, kFixedCollectives> fixedUsed_{}; // the fixed collectives the stage programs run
  std::set<int> bucketCollectives_;                         // those of them that gradient buckets run
  std::map<int, std::vector<BucketCut>> cuts_;              // per micro-batch reduced: its buckets as they fill
  std::map<int, std::size_t> cutCursor_;                    // per micro-batch: its first cut not yet placed
  std::map<int, std::size_t> lastLayer_;                    // per micro-batch: its backward's last layer
  const BucketCut* cutNext_ = nullptr;                      // the layer's backward at hand: its cuts to place,
  const BucketCut* cutEnd_ = nullptr;
  Time cutElapsed_ = 0, cutPass_ = 0;                       // its compute so far, and in all
  std::int32_t labelLayer_ = -1;                            // the layer pass being built, named on its items
  std::uint8_t labelPass_ = 0;
  struct RankInfo {
    int stage, next, previous;
    int ringNext, ringPrevious; // its CP group's ring
    int group[4];               // its TP, EP, gradient (DP x CP) and expert-DP group numbers
  };
  std::vector<RankInfo> ranks_;
  std::vector<std::vector<const Schedule*>> cache_[4]; // per group kind, per group: collective -> schedule
  std::map<std::tuple<Collective, std::string, int, int>, AlgorithmEntry> entries_;
  std::map<std::tuple<Collective, Bytes, char, int>, SchedulePtr> built_;
  std::map<std::pair<char, int>, GroupView> views_;
  std::map<const Schedule*, std::string> algorithmOf_; // its algorithm's name
};

} // namespace

void checkParallelLayout(const Cluster& cluster, const TrainingSpec& training) {
  if (!training.parallel) return;
  const ParallelLayout& l = *training.parallel;
  if (l.tp == 1 && l.pp == 1 && l.cp == 1 && l.dp != 0 && l.dp != cluster.ranks())
    throw InputError("dp " + std::to_string(l.dp) + " with tp 1 and pp 1 must be " + cluster.name + "'s " +
                     std::to_string(cluster.ranks()) + " devices");
  validateLayout(resolvedLayout(l, cluster), cluster, training);
}

namespace {

// What one run of the step's schedule gives: the executor's result and the
// breakdown of its slowest rank.
struct StepRun {
  ExecutionResult run;
  StepBreakdown breakdown;
  int slowest = 0;
  Time communication = 0;
  std::vector<BucketTiming> buckets; // of the slowest rank's stage, times only
  TraceSink* trace = nullptr;
};

// Why the step cannot run under a symmetry whatever the cluster, or "".
std::string symmetryRuledOut(const StepOptions& options) {
  if (!options.symmetry) return "simulation.symmetry is off";
  if (options.fidelity != Fidelity::Fast) return "the packet model's queues and jitter are per port";
  if (options.trace) return "a trace shows every rank";
  return "";
}

// The step's symmetry as the run and its estimate find it (`positions`:
// the TP positions' too).
ReplicaSymmetry stepSymmetry(const Cluster& cluster, ParallelStepBuilder& builder, const StepOptions& options,
                             bool positions = true) {
  ReplicaSymmetry symmetry;
  symmetry.why = symmetryRuledOut(options);
  if (symmetry.why.empty())
    symmetry = findReplicaSymmetry(cluster, builder.placement(), [&](int rank) { return builder.groupCollectives(rank); },
                                   positions);
  return symmetry;
}

StepRun runStepSchedule(const Cluster& cluster, const ParallelStepPlan& plan, const StepOptions& options,
                        const std::string& title, const ReplicaSymmetry* symmetry) {
  std::vector<int> representatives;
  if (symmetry)
    for (int i = 0; i < symmetry->symmetry->representatives(); ++i)
      representatives.push_back(symmetry->symmetry->representativeAt(i));
  ParallelStepSchedule schedule = symmetry ? ParallelStepSchedule(plan, representatives) : ParallelStepSchedule(plan);
  EventEngine engine;
  std::unique_ptr<Network> network = makeNetwork(engine, cluster, {options.fidelity, options.segment, options.seed, options.roce});
  if (symmetry && !network->fold(symmetry->channelFold, symmetry->symmetry->copies()))
    throw SymmetryBroken("the network model cannot be folded");
  TraceSink* traceSink = nullptr;
  if (options.trace) {
    traceSink = options.trace->beginRun(title, cluster);
    network->setTrace(traceSink);
  }
  BreakdownSink sink(schedule, traceSink, [&plan](const ProgramItem& item) { return plan.itemName(item); });
  ScheduleExecutor executor(engine, *network, cluster, schedule, &sink, symmetry ? &*symmetry->symmetry : nullptr);
  executor.setComputeShareTaken(options.collectiveComputeShare);
  StepRun out;
  out.run = executor.run();
  out.slowest = sink.slowestRank();
  out.breakdown = sink.of(out.slowest);
  out.communication = unionLength(std::move(sink.bucketSpans()));
  out.buckets = sink.bucketTimings(plan.stageOf(out.slowest));
  out.trace = traceSink;
  return out;
}

} // namespace

StepResult simulateParallelStep(const Cluster& cluster, const TrainingSpec& given, const StepOptions& options) {
  const TrainingSpec training = withLayout(given);
  const ModelSpec& model = training.model;
  ParallelStepBuilder builder(cluster, training, options);
  const ParallelStepPlan plan = builder.plan();
  const std::string title =
      "training step: " + model.name + " (" + builder.layout().text() + ") on " + cluster.name;
  ReplicaSymmetry symmetry = stepSymmetry(cluster, builder, options);
  std::optional<StepRun> ran;
  // What breaks a symmetry with the TP positions at run time (a route with
  // a choice of paths) may not break the replicas' alone: those run next,
  // then every device.
  while (!ran && symmetry.symmetry) {
    try {
      ran = runStepSchedule(cluster, plan, options, title, &symmetry);
    } catch (const SymmetryBroken& e) {
      ReplicaSymmetry next;
      if (symmetry.movesPositions()) next = stepSymmetry(cluster, builder, options, false);
      if (!next.symmetry) next.why = e.what();
      if (builder.layout().tp > 1) next.tpWhy = e.what();
      symmetry = std::move(next);
    }
  }
  if (!ran) ran = runStepSchedule(cluster, plan, options, title, nullptr);
  const ExecutionResult& run = ran->run;
  const int slowest = ran->slowest;

  const ParallelLayout& l = builder.layout();
  StepResult result;
  result.ranks = cluster.ranks();
  result.replicas = l.dp;
  if (given.parallel) result.layout = l;
  result.microBatch = model.microBatch;
  result.accumulation = l.microBatches;
  result.iteration = run.finish;
  for (const LayerCompute& c : builder.layers()) // per device: its share of the layers
    result.forward += c.forward.total(), result.backward += c.backward.total() + c.recompute.total();
  result.forward /= Time(l.pp), result.backward /= Time(l.pp);
  result.breakdown = ran->breakdown;
  const int slowestStage = builder.placement().of(slowest).pp;
  result.optimizer = builder.optimizer(slowestStage);
  result.computeClasses = builder.classes(slowestStage);
  result.compute = result.breakdown.compute + result.breakdown.optimizer;
  result.communication = ran->communication;
  result.exposed = result.iteration - result.compute;
  result.buckets = std::move(ran->buckets);
  for (std::size_t b = 0; b < result.buckets.size(); ++b) {
    BucketTiming& t = result.buckets[b];
    std::tie(t.bytes, t.algorithm) = builder.bucket(slowest, plan.stages[std::size_t(slowestStage)].buckets[b]);
    if (ran->trace)
      ran->trace->span("AllReduce slot " + std::to_string(b % std::size_t(std::max(1, training.pipeline))),
                       "bucket " + std::to_string(b) + ": " + t.algorithm + " " + formatBytes(t.bytes), t.start, t.end);
  }
  // A bucket buffer for each bucket in flight, where the framework copies into one.
  const int inFlight = training.bucketCopy ? std::min<int>(training.pipeline, int(result.buckets.size())) : 0;
  result.memory =
      parallelMemoryPerDevice(model, l, training.bucket, inFlight, options.communicatorBuffer, training.paramPrefetch);
  result.deviceMemory = cluster.device.memory;
  if (!model.forward) result.flopsPerSample = model.flopsPerSample, result.devicePeakFlops = cluster.device.flops;
  if (model.transformer) result.tokensPerSample = model.transformer->sequence;
  result.events = run.events;
  result.network = run.network;
  result.bytesSent = run.bytesSent;
  result.simulatedRanks = symmetry.symmetry ? symmetry.symmetry->representatives() : cluster.ranks();
  result.symmetry = symmetry.text();
  return result;
}

namespace {

// The ranks a step runs: under a symmetry only the representatives.
int simulatedRanks(const Cluster& cluster, ParallelStepBuilder& builder, const StepOptions& options) {
  const ReplicaSymmetry symmetry = stepSymmetry(cluster, builder, options);
  return symmetry.symmetry ? symmetry.symmetry->representatives() : cluster.ranks();
}

// `simulated`: the ranks that run, when the caller knows them (0: found here).
WorkEstimate walkParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& options,
                              int simulated = 0) {
  ParallelStepBuilder builder(cluster, training, options);
  std::vector<int> sample; // one rank of each stage
  for (int stage = 0; stage < builder.layout().pp; ++stage) sample.push_back(builder.placement().rank({0, 0, stage}));
  const ParallelStepPlan plan = builder.plan();
  ParallelStepSchedule schedule(plan, sample);
  if (simulated == 0) simulated = simulatedRanks(cluster, builder, options);
  // One rank of each stage stands for its stage: count its messages and
  // their segments' hops, then scale by the ranks of a stage that run.
  WorkEstimate e;
  const ParallelLayout& l = builder.layout();
  const StepCosts costs = StepCosts::ofDevice(cluster.device);
  const Bytes segment = std::max<Bytes>(options.segment, 1);
  std::vector<Op> ops;
  double networkEvents = 0; // a segment arrives at a hop or waits for a link, a reduce ends: cheap events
  double laneEvents = 0;  // a lane's steps start, stop or compute: events that walk its program
  double pairs = 0;       // (lane, peer) pairs that send: the executor keeps a state each
  std::vector<std::pair<std::uint32_t, double>> firstLinks; // a step's sends: their first link, segments
  std::vector<int> peers;                                   // a stream's sends: their receivers
  Routing routing(cluster);
  for (int rank : sample) {
    Time compute = 0;
    for (int s = 0; s < schedule.streamCount(); ++s) {
      const Schedule& stream = schedule.stream(s);
      peers.clear();
      bool communicating = false;
      for (int step = 0, n = stream.stepCount(rank); step < n; ++step) {
        ops.clear();
        stream.appendOps(rank, step, ops);
        const bool talks = std::any_of(ops.begin(), ops.end(), communicates);
        if (talks != communicating) laneEvents += 1, communicating = talks;
        // A step that communicates waits out its latency first (ScheduleExecutor::stepLatency).
        if (talks && (costs.intraStep > 0 || costs.interStep > 0)) laneEvents += 1;
        firstLinks.clear();
        for (const Op& op : ops) {
          if (op.kind == OpKind::Compute) compute += Time(op.durationPs), laneEvents += 1;
          if (op.kind == OpKind::RecvReduce && cluster.device.reduceBandwidth > 0) networkEvents += 1; // the reduce's end
          if (op.kind != OpKind::Send) continue;
          peers.push_back(op.peer);
          // A segment takes an event per hop of its route (an in-network
          // send: up to its switch and down again).
          const double units = double(std::max<Bytes>(1, (op.bytes + segment - 1) / segment));
          if (op.net != InNetwork::None) {
            networkEvents += 2 * units;
            continue;
          }
          const Routing::Route route =
              routing.route(cluster.rankNode[std::size_t(rank)], cluster.rankNode[std::size_t(op.peer)]);
          networkEvents += units * route.hops;
          if (route.hops > 0) firstLinks.emplace_back(routing.channel(route, 0), units);
        }
        // A link with segments queued wakes up after each one it sends but
        // the last (link_network.cpp: startNext): the step's messages queue
        // their segments at their first link all at once.
        std::sort(firstLinks.begin(), firstLinks.end());
        for (std::size_t i = 0; i < firstLinks.size(); ++i)
          networkEvents += firstLinks[i].second - (i + 1 == firstLinks.size() || firstLinks[i + 1].first != firstLinks[i].first);
      }
      std::sort(peers.begin(), peers.end());
      pairs += double(std::unique(peers.begin(), peers.end()) - peers.begin());
    }
    e.simulatedSeconds = std::max(e.simulatedSeconds, toSeconds(compute));
  }
  // Every rank of a stage that runs its program: scale the sampled rank by
  // them. A computation is an event too (its end), which dominates a small
  // model's step. A message costs no event of its own: its delivery is its
  // last segment's arrival (link_network.cpp). A lane's steps that start
  // communicating cost an event (their start), and where collectives hold
  // SMs (NCCL) their start and end re-time the computation beside them.
  const double perStage = double(simulated / l.pp);
  e.events = perStage * (networkEvents + laneEvents);
  // A base (the folded 70 B step on 1,024 NPUs peaks at 19 MiB in all); per
  // rank that runs a few hundred bytes a stream (lanes), a pair state for
  // each peer a lane sends to (massif: a deque slot and its queues), some
  // for each item of its programs (the first step of each, its breakdown);
  // the cluster and rank tables.
  std::size_t items = 0;
  for (int rank : sample)
    for (int which = 0; which < ParallelStepSchedule::kPrograms; ++which)
      items = std::max(items, schedule.program(rank, which).size());
  constexpr double kBytesPerLane = 256, kBytesPerPair = 144, kBytesPerItem = 8, kBytesPerDevice = 1800;
  e.memoryBytes = 16e6 + double(simulated) * (double(schedule.streamCount()) * kBytesPerLane + double(items) * kBytesPerItem) +
                  perStage * pairs * kBytesPerPair + double(cluster.ranks()) * kBytesPerDevice;
  // A network event costs far less than a lane's event (which walks the
  // stage's programs), and building the cluster and the per-rank tables
  // costs per device whether it runs or not. Both events slow down as the
  // run's state outgrows the caches: 40 % more per doubling past 32 MiB (a
  // training step touches a smaller share of its state per event than a
  // collective's pair states do). Fitted (least squares
  // of the log ratio) to nine runs on this 2-core machine: the 70 B step
  // folded and in full on 1,024 NPUs (0.23, 3.4 s), the 405 B step folded
  // on 1,024, 16,384 and 131,072 H100s (0.66, 0.87, 1.8 s) and in full on
  // 256, 1,024, 4,096 and 16,384 (0.90, 5.1, 42, 237 s); each is estimated
  // within 0.82-1.25x (scripts/bench_estimate.sh --steps).
  constexpr double kSecondsPerHop = 22e-9, kSecondsPerLaneEvent = 900e-9, kSecondsPerDevice = 5e-6;
  constexpr double kCachedState = 32.0 * (1 << 20), kSlowdownPerDoubling = 0.4;
  const double slowdown = 1 + kSlowdownPerDoubling * std::max(0.0, std::log2(e.memoryBytes / kCachedState));
  e.wallSeconds = perStage * (networkEvents * kSecondsPerHop + laneEvents * kSecondsPerLaneEvent) * slowdown +
                  double(cluster.ranks()) * kSecondsPerDevice;
  // Finding a symmetry maps every link once per generator of each group
  // tried (the replicas', then with the TP positions': about twice
  // log2(copies) in all). Fitted like the above to the 405 B step folded
  // on 131,072 H100s, where it is a third of the run (0.4 of 1.4 s).
  constexpr double kSecondsPerLinkMove = 40e-9;
  // And what does not grow with the step: building the stage programs and
  // the cluster's tables (starting the process is the command's, once: a
  // plan runs dozens of steps). A folded 70 B step on 1,024 NPUs runs 0.13 M
  // events in 0.10 s.
  constexpr double kSecondsBase = 0.03;
  e.wallSeconds += kSecondsBase;
  if (simulated < cluster.ranks())
    e.wallSeconds += 2 * std::log2(double(cluster.ranks()) / simulated) * double(cluster.links.size()) * kSecondsPerLinkMove;
  return e;
}

} // namespace

WorkEstimate estimateParallelStep(const Cluster& cluster, const TrainingSpec& given, const StepOptions& options) {
  const TrainingSpec training = withLayout(given);
  // Walking a step's programs costs as much as building them, which grows
  // with the micro-batches (a global batch of 65,536 took seconds a
  // layout). Once the pipeline is full every further micro-batch adds the
  // same passes, messages and time, so past two full rounds the step is
  // estimated at m1 and m2 = 2 m1 micro-batches (multiples of pp, which the
  // interleaved schedule needs) and extrapolated along that line.
  const ParallelLayout l = resolvedLayout(*training.parallel, cluster);
  const int m1 = l.pp * std::max(1, (8 + l.pp - 1) / l.pp), m2 = 2 * m1;
  if (l.microBatches <= m2) return walkParallelStep(cluster, training, options);
  validateLayout(l, cluster, training); // what the full step would be refused for
  // The gradient groups, and so the symmetry, are the same at any number
  // of micro-batches: found once for both walks.
  TrainingSpec fewer = training;
  fewer.parallel->microBatches = m1;
  ParallelStepBuilder builder(cluster, fewer, options);
  const int simulated = simulatedRanks(cluster, builder, options);
  auto at = [&](int microBatches) {
    TrainingSpec t = training;
    t.parallel->microBatches = microBatches;
    return walkParallelStep(cluster, t, options, simulated);
  };
  const WorkEstimate a = at(m1), b = at(m2);
  const double k = double(l.microBatches - m1) / double(m2 - m1);
  auto along = [&](double WorkEstimate::*figure) { return a.*figure + k * (b.*figure - a.*figure); };
  WorkEstimate e = b;
  e.events = along(&WorkEstimate::events);
  e.simulatedSeconds = along(&WorkEstimate::simulatedSeconds);
  e.wallSeconds = along(&WorkEstimate::wallSeconds);
  e.memoryBytes = along(&WorkEstimate::memoryBytes); // ZeRO 2-3: a stream per micro-batch's buckets
  e.lanes = along(&WorkEstimate::lanes);
  return e;
}

} // namespace collsim
