#include "sim/workload/data_parallel_step.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "algorithms/core/compose.h"
#include "algorithms/core/registry.h"
#include "sim/executor/schedule_executor.h"
#include "sim/network/network.h"
#include "sim/run/resolve_algorithm.h"
#include "sim/run/simulate.h"
#include "sim/trace/trace_recorder.h"
#include "sim/workload/group_algorithm.h"
#include "sim/workload/layer_compute.h"
#include "sim/workload/step_schedule.h"
#include "sim/network/network_models.h"

namespace collsim {

namespace {

// Watches the executor's steps for the bucket timings, where each rank's
// compute stream spent its time (and the compute of rank 0 for a trace);
// passes link activity on to the trace.
class StepTimeline final : public TraceSink {
public:
  // `buckets` have their sizes and algorithms; the timeline fills in the times.
  StepTimeline(const TrainingStepSchedule& s, std::vector<BucketTiming> buckets, TraceSink* trace)
      : schedule_(s), trace_(trace), bucketOf_(std::size_t(s.streamCount()), -1), timings_(std::move(buckets)),
        parts_(std::size_t(s.ranks())), finish_(std::size_t(s.ranks()), 0) {
    for (std::size_t b = 0; b < timings_.size(); ++b) {
      bucketOf_[std::size_t(s.bucketStream(int(b)))] = int(b);
      timings_[b].ready = timings_[b].start = kNever;
    }
  }

  void channelBusy(std::uint32_t channel, Time start, Time end) override {
    if (trace_) trace_->channelBusy(channel, start, end);
  }
  void counter(const CounterTrack& track, Time at, double value) override {
    if (trace_) trace_->counter(track, at, value);
  }
  void rankStep(const StepTrace& s) override {
    const int rank = s.rank, stream = s.stream, step = s.step;
    const Time start = s.start, end = s.end;
    if (stream == TrainingStepSchedule::kComputeStream) {
      if (rank == 0 && trace_) compute_.push_back({step, start, end});
      // Its last two steps: the wait for the gradients, then the optimizer.
      StepBreakdown& b = parts_[std::size_t(rank)];
      const int last = schedule_.computeStepCount() - 1;
      (step == last ? b.optimizer : step == last - 1 ? b.dataParallel : b.compute) += end - start;
      finish_[std::size_t(rank)] = std::max(finish_[std::size_t(rank)], end);
      return;
    }
    int b = bucketOf_[std::size_t(stream)];
    if (b < 0) return;
    BucketTiming& t = timings_[std::size_t(b)];
    int steps = schedule_.stream(stream).stepCount(rank);
    if (step == 0) t.ready = std::min(t.ready, end);      // the gate
    else if (step == 1) t.start = std::min(t.start, end); // the copy in
    // Before the copy back; on one rank the AllReduce has no steps and ends
    // with the copy in (step 1 is then also steps - 2).
    if (step > 0 && step == steps - 2) t.end = std::max(t.end, end);
  }

  std::vector<BucketTiming>& timings() { return timings_; }
  // Where the time went on the rank whose compute stream ended last.
  const StepBreakdown& slowestBreakdown() const {
    return parts_[std::size_t(std::max_element(finish_.begin(), finish_.end()) - finish_.begin())];
  }

  void writeSpans(int pipeline) const {
    if (!trace_) return;
    for (const auto& c : compute_)
      trace_->span("compute (rank 0)", schedule_.computeStepName(c.step), c.start, c.end);
    for (std::size_t b = 0; b < timings_.size(); ++b) {
      const BucketTiming& t = timings_[b];
      trace_->span("AllReduce slot " + std::to_string(b % std::size_t(pipeline)),
                   "bucket " + std::to_string(b) + ": " + t.algorithm + " " + formatBytes(t.bytes), t.start, t.end);
    }
  }

private:
  static constexpr Time kNever = std::numeric_limits<Time>::max();
  struct ComputeStep {
    int step;
    Time start, end;
  };
  const TrainingStepSchedule& schedule_;
  TraceSink* trace_;
  std::vector<int> bucketOf_; // per stream: the bucket whose first stream it is
  std::vector<BucketTiming> timings_;
  std::vector<ComputeStep> compute_;
  std::vector<StepBreakdown> parts_; // per rank
  std::vector<Time> finish_;         // per rank: when its compute stream ended
};

// Every bucket's AllReduce schedule, built once per (algorithm, size), with
// HCCL's loops over its buffer for buckets larger than it.
class BucketCollectives {
public:
  BucketCollectives(const Cluster& cluster, std::uint32_t elemSize, const StepOptions& o)
      : cluster_(cluster), elemSize_(elemSize), options_(o) {}

  const Schedule* get(const std::string& name, Bytes bytes) {
    auto key = std::make_pair(name, bytes);
    if (auto it = built_.find(key); it != built_.end()) return it->second.get();
    const AlgorithmEntry& algo = entry(name);
    Bytes loop = options_.bufferLoops && options_.hcclBufferSize > 0 ? options_.hcclBufferSize / elemSize_ * elemSize_
                                                                      : std::max<Bytes>(bytes, 1);
    std::vector<SchedulePtr> loops;
    for (Bytes done = 0; done < bytes; done += loop) loops.push_back(build(algo, std::min(loop, bytes - done)));
    if (loops.size() > 1 && loops.front()->streamCount() > 1)
      throw InputError(name + " runs on several streams and cannot loop over HCCL's buffer (" + formatBytes(loop) +
                       "); raise hccl.buffer_size (HCCL_BUFFSIZE) to at least " + formatBytes(bytes) +
                       " or use smaller buckets");
    SchedulePtr s = loops.size() == 1 ? std::move(loops.front()) : std::make_unique<SequenceSchedule>(std::move(loops));
    return (built_[key] = std::move(s)).get();
  }

private:
  const AlgorithmEntry& entry(const std::string& name) {
    if (auto it = entries_.find(name); it != entries_.end()) return it->second;
    auto found = requireAlgorithm(Collective::AllReduce, name, cluster_, "gradient buckets");
    CollectiveSpec layout = layoutOf(cluster_, Collective::AllReduce);
    if (options_.verify)
      verifyAlgorithm(found, Collective::AllReduce, layout.ranks, elemSize_, layout.devicesPerServer);
    return entries_.emplace(name, found).first->second;
  }
  SchedulePtr build(const AlgorithmEntry& algo, Bytes bytes) {
    CollectiveSpec spec = layoutOf(cluster_, Collective::AllReduce);
    spec.count = bytes / elemSize_;
    spec.elemSize = elemSize_;
    return buildSchedule(algo, spec);
  }

  const Cluster& cluster_;
  std::uint32_t elemSize_;
  const StepOptions& options_;
  std::map<std::string, AlgorithmEntry> entries_;
  std::map<std::pair<std::string, Bytes>, SchedulePtr> built_;
};

} // namespace

static std::string bucketAlgorithm(const StepOptions& options, Bytes bytes) {
  if (options.algorithm != "auto") return options.algorithm;
  if (!options.pickAlgorithm) throw InputError("algo: auto needs training.selector (a rules file)");
  return options.pickAlgorithm(bytes);
}

// Under a layout of data parallelism alone, `auto` without selector rules
// is HCCL's rule for the one group of every device.
static StepOptions withGroupRule(const Cluster& cluster, const TrainingSpec& training, StepOptions o) {
  if (training.parallel && o.algorithm == "auto" && !o.pickAlgorithm) {
    std::vector<int> all(std::size_t(cluster.ranks()));
    for (int r = 0; r < cluster.ranks(); ++r) all[std::size_t(r)] = r;
    o.pickAlgorithm = [name = hcclGroupAlgorithm(cluster, Collective::AllReduce, all)](Bytes) { return name; };
  }
  return o;
}

WorkEstimate estimateDataParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& given) {
  const ModelSpec& model = training.model;
  const StepOptions options = withGroupRule(cluster, training, given);
  PassTimes pass = passTimes(model, cluster.device);
  BackwardPlan backward = planBackward(model, pass.backward, training.bucket);
  WorkEstimate step;
  step.simulatedSeconds = toSeconds(pass.forward + pass.backward) * training.accumulation;
  std::map<std::pair<std::string, Bytes>, WorkEstimate> seen; // buckets repeat their size
  std::map<std::string, AlgorithmEntry> entries;
  double memory = 0, lanes = double(cluster.ranks()); // the compute stream's
  std::optional<CollectiveEstimator> estimate; // made when a bucket needs it
  for (const GradientBucket& b : backward.buckets) {
    std::string name = bucketAlgorithm(options, b.bytes);
    auto key = std::make_pair(name, b.bytes);
    if (!seen.count(key)) {
      if (!entries.count(name))
        entries.emplace(name, requireAlgorithm(Collective::AllReduce, name, cluster, "gradient buckets"));
      CollectiveWork w{Collective::AllReduce, &entries.at(name), b.bytes, model.precision.gradients, 0,
                       options.segment, options.fidelity, options.bufferLoops ? options.hcclBufferSize : 0, options.roce.mtu,
                       options.roce.queuePairs};
      if (!estimate) estimate.emplace(cluster);
      seen[key] = (*estimate)(w);
    }
    const WorkEstimate& e = seen[key];
    step.events += e.events;
    step.wallSeconds += e.seconds();
    step.simulatedSeconds += e.simulatedSeconds;
    memory = std::max(memory, e.memoryBytes);
    lanes += e.lanes;
  }
  // Buckets in flight share the network: their state adds up. And every
  // bucket's streams are lanes of the one step schedule, each keeping its
  // pairs, operations and events once it has run: about 4 KiB a lane
  // (massif on capacity-plan-bert, 16 servers: 98 MB over 27,000 lanes).
  constexpr double kBytesPerStepLane = 4 << 10;
  step.memoryBytes = memory * std::max(1, std::min<int>(training.pipeline, int(backward.buckets.size()))) +
                     lanes * kBytesPerStepLane;
  return step;
}

StepResult simulateDataParallelStep(const Cluster& cluster, const TrainingSpec& training, const StepOptions& given) {
  const ModelSpec& model = training.model;
  const StepOptions options = withGroupRule(cluster, training, given);
  const DeviceModel& device = cluster.device;
  PassTimes pass = passTimes(model, device);

  StepPlan plan;
  plan.ranks = cluster.ranks();
  plan.accumulation = training.accumulation;
  plan.pipeline = training.pipeline;
  plan.overlap = training.overlap;
  plan.forward = pass.forward;
  plan.backward = planBackward(model, pass.backward, training.bucket);
  const Precision& x = model.precision;
  plan.optimizer = serializationTime(x.optimizerTraffic(model.parameters()), device.memoryBandwidth);

  StepResult result;
  const std::uint32_t elemSize = x.gradients;
  BucketCollectives collectives(cluster, elemSize, options);
  for (const GradientBucket& b : plan.backward.buckets) {
    BucketTiming t;
    t.bytes = b.bytes;
    t.algorithm = bucketAlgorithm(options, b.bytes);
    plan.collectives.push_back(collectives.get(t.algorithm, b.bytes));
    plan.copyTimes.push_back(training.bucketCopy ? serializationTime(2 * b.bytes, device.memoryBandwidth) : 0); // read and write
    result.buckets.push_back(t);
  }

  TrainingStepSchedule schedule(plan);
  EventEngine engine;
  std::unique_ptr<Network> network = makeNetwork(engine, cluster, {options.fidelity, options.segment, options.seed, options.roce});
  TraceSink* traceSink = nullptr;
  if (options.trace) {
    traceSink = options.trace->beginRun("training step: " + model.name + " on " + cluster.name, cluster);
    network->setTrace(traceSink);
  }
  StepTimeline timeline(schedule, result.buckets, traceSink);
  ScheduleExecutor executor(engine, *network, cluster, schedule, &timeline);
  executor.setComputeShareTaken(options.collectiveComputeShare);
  ExecutionResult run = executor.run();
  timeline.writeSpans(training.pipeline);

  result.breakdown = timeline.slowestBreakdown();
  result.buckets = std::move(timeline.timings());
  std::vector<std::pair<Time, Time>> spans;
  for (const BucketTiming& b : result.buckets) spans.emplace_back(b.start, b.end);
  result.ranks = cluster.ranks();
  result.microBatch = model.microBatch;
  result.accumulation = training.accumulation;
  result.iteration = run.finish;
  result.forward = pass.forward;
  result.backward = pass.backward;
  result.optimizer = plan.optimizer;
  result.compute = Time(training.accumulation) * (pass.forward + pass.backward) + plan.optimizer;
  for (const LayerCompute& l : layerCompute(model, device, {})) result.computeClasses += l.classes;
  result.computeClasses = result.computeClasses * double(training.accumulation);
  result.computeClasses.memory += toSeconds(plan.optimizer);
  result.communication = unionLength(std::move(spans));
  result.exposed = result.iteration - result.compute;
  int inFlight = std::min<int>(training.pipeline, int(plan.backward.buckets.size()));
  result.memory = memoryPerDevice(model, training.accumulation, training.bucket, inFlight, options.hcclBufferSize);
  result.deviceMemory = device.memory;
  if (!model.forward) result.flopsPerSample = model.flopsPerSample, result.devicePeakFlops = device.flops;
  if (model.transformer) result.tokensPerSample = model.transformer->sequence;
  result.events = run.events;
  result.network = run.network;
  result.bytesSent = run.bytesSent;
  if (training.parallel) {
    result.layout = *training.parallel;
    result.layout->dp = cluster.ranks();
  }
  return result;
}

} // namespace collsim
