#include "sim/run/simulate.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <type_traits>
#include <stdexcept>

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/channels.h"
#include "algorithms/core/chunk_loops.h"
#include "sim/core/input_error.h"
#include "sim/network/network_models.h"
#include "sim/run/collective_symmetry.h"
#include "sim/run/in_network_chunk.h"
#include "sim/run/schedule_cache.h"
#include "sim/trace/trace_recorder.h"
#include "topologies/cluster_rates.h"

namespace collsim {

CollectiveSpec layoutOf(const Cluster& cluster, Collective op) {
  CollectiveSpec spec;
  spec.op = op;
  spec.ranks = cluster.ranks();
  spec.devicesPerServer = cluster.servers > 1 ? cluster.devicesPerServer : 0;
  return spec;
}

double CollectiveRun::algbwGBps() const {
  return execution.finish == 0 ? 0.0 : double(bytes) / toSeconds(execution.finish) / 1e9;
}

double CollectiveRun::busbwGBps() const { return algbwGBps() * busBandwidthFactor(op, ranks); }

bool verifyAlgorithm(const AlgorithmEntry& algorithm, Collective op, int ranks, std::uint32_t elemSize,
                     int devicesPerServer) {
  if (ranks > kMaxCheckedRanks) return false;
  CollectiveSpec spec{op, ranks, std::uint64_t(2 * ranks + 3), elemSize, 0, devicesPerServer};
  SchedulePtr schedule = buildSchedule(algorithm, spec);
  CheckReport report = checkSchedule(*schedule, spec);
  if (!report.ok())
    throw std::runtime_error(std::string("the symbolic checker rejects ") + algorithm.name + " " +
                             collectiveName(op) + " on " + std::to_string(ranks) + " ranks:\n" + report.summary());
  return true;
}

namespace {

// How the algorithm runs: as which entry (channels, chunk loops) and with
// which per-step costs.
struct RunShape {
  AlgorithmEntry entry;
  StepCosts costs;
  std::optional<Protocol> protocol;
  int channels = 1;
  Bytes loopBytes = 0; // the whole buffer's bytes per chunk loop (0: one loop)
};

// AllReduce's channels follow the server's rings (its result does not
// depend on the order ranks are visited in; other collectives' does).
const ServerRings& ringsFor(const Cluster& cluster, Collective op) {
  static const ServerRings none;
  return op == Collective::AllReduce ? cluster.serverRings : none;
}

RunShape idealShape(const Cluster& cluster, const RunRequest& req) {
  return {withChannels(*req.algorithm, req.channels, ringsFor(cluster, req.op)), StepCosts::ofDevice(cluster.device), std::nullopt,
          req.channels, 0};
}

// The most one channel moves: its share of its device's links inside the
// server. NCCL's topology search gives each of its channels an equal share
// of every GPU's NVLink bandwidth (the channels are its reservations), and a
// channel is one thread block, which does not take up what the others
// leave idle while they wait for their data. (Rank 0's device stands for
// all: a cluster's devices are alike.)
Bandwidth channelShare(const Cluster& cluster, int channels) {
  int device = cluster.rankNode[0];
  Bandwidth links = 0;
  for (const ClusterLink& l : cluster.links)
    if (l.tier == LinkTier::ScaleUp && (l.a == device || l.b == device)) links += l.params.bandwidth;
  return links / Bandwidth(std::max(1, channels));
}

// In data bytes: the share carries lines, of which the data is a part; and
// each of the run's `channels` gets its part of the protocol's bus ceiling.
Bandwidth laneBandwidth(const Cluster& cluster, const RunRequest& req, const ProtocolModel& p, int channels) {
  Bandwidth lane = p.channelBandwidth;
  auto cap = [&lane](Bandwidth limit) {
    if (limit > 0) lane = lane == 0 ? limit : std::min(lane, limit);
  };
  if (Bandwidth bus = p.busBandwidthFor(cluster.servers); bus > 0) cap(bus / Bandwidth(std::max(1, channels)));
  if (p.laneEfficiency == 0) return lane;
  Bandwidth share = channelShare(cluster, req.channels > 1 ? req.channels : req.library.channels);
  cap(Bandwidth(double(share) * p.dataShare * p.laneEfficiency));
  return lane;
}

// The chunk an in-network algorithm slices by: with library.chunk_ladder,
// NCCL's ladder for NVLS and its tree (in_network_chunk.h), from the rates
// its topology search sees; else, or for another library, or SHARP in the
// fabric alone, the library's fixed chunk.
Bytes inNetworkChunk(const Cluster& cluster, const RunRequest& req, int channels, int heads) {
  const AlgorithmEntry& a = *req.algorithm;
  if (req.library.kind != LibraryKind::Nccl || !req.library.chunkLadder || !a.needsReducingSwitch)
    return req.library.nvlsChunk;
  InNetworkChunkInput in;
  in.minor = req.library.version;
  in.pattern = cluster.servers > 1 && !a.needsReducingFabric ? InNetworkPattern::NvlsTree : InNetworkPattern::Nvls;
  in.nodes = cluster.servers;
  in.bytes = req.bytes;
  in.channels = channels;
  in.heads = heads;
  in.nvlsChunk = req.library.nvlsChunk;
  in.treeMaxChunk = req.library.nvlsTreeMaxChunk;
  // Simple's chunk is 4 of its buffer's 8 steps (library_model.cpp).
  if (const ProtocolModel* simple = req.library.find(Protocol::Simple); simple && simple->chunk > 0)
    in.simpleStep = simple->chunk / 4;
  // NCCL rates NVLS at the slower of a device's NVLink and its server's
  // NICs, times 5/6 (tuning.cc), as ncclTuningInputOf feeds its model.
  const double inside = double(deviceScaleUpRate(cluster, 0)) / 1e9;
  const double outside = double(serverScaleOutRate(cluster, 0)) / 1e9;
  in.nvlsRateGBs = (cluster.servers > 1 && outside > 0 ? std::min(inside, outside) : inside) * 5.0 / 6.0;
  return ncclInNetworkChunk(in);
}

// Channels and chunk loops change AllReduce only (algorithms/core/channels.h).
RunShape protocolShape(const Cluster& cluster, const RunRequest& req, const ProtocolModel& p) {
  int ranks = cluster.ranks();
  bool split = req.op == Collective::AllReduce;
  // In-network algorithms slice by the NVLS chunk (inNetworkChunk), a slice being a
  // chunk per device of a server (chunk_loops.h, pipelinePieces); other
  // algorithms that pipeline pieces cut the protocol's wave when it has one.
  const AlgorithmEntry& a = *req.algorithm;
  bool nvls = a.pipelinesChunks && a.reducesInNetwork() && req.library.nvlsChunk > 0;
  // NCCL runs NVLS on all its NVLS channels at every size (no thread
  // threshold: enqueue.cc, "NVLS should not need more than 16 channels").
  // An algorithm that pipelines pieces of its own (a tree) moves the whole
  // part of its channel step after step, not a piece per rank: its
  // threshold is not multiplied by the ranks.
  int channels = !split              ? 1
                 : req.channels > 1 ? req.channels
                 : nvls             ? req.library.channels
                                    : req.library.channelsFor(p, req.bytes, a.pipelinesChunks ? 1 : ranks);
  int perLoop = nvls && cluster.servers > 1 ? cluster.devicesPerServer : ranks;
  Bytes chunk = nvls ? inNetworkChunk(cluster, req, channels, perLoop) : a.pipelinesChunks && p.wave > 0 ? p.wave : p.chunk;
  AlgorithmEntry looped = split ? withChunkLoops(a, chunk) : a;
  // NVLS's latency is the NVSwitch's: SHARP in the fabric alone keeps the protocol's.
  Time base = a.needsReducingSwitch && req.library.nvlsLatency > 0 ? req.library.nvlsLatency : p.baseLatency;
  StepCosts costs{req.library.launch + base, p.stepOverhead, p.stepOverhead, p.dataShare,
                  laneBandwidth(cluster, req, p, channels), p.slots, p.hopIntra, p.hopNetwork};
  std::uint32_t elemSize = dataTypeInfo(req.dtype).bytes;
  Bytes loopBytes = split && chunk > 0 ? std::max<Bytes>(1, chunk / elemSize) * elemSize * Bytes(perLoop) * Bytes(channels) : 0;
  // Named as asked: the library chooses the channels (reported beside).
  AlgorithmEntry entry = withChannels(looped, channels, ringsFor(cluster, req.op));
  entry.name = req.algorithm->name;
  return {std::move(entry), costs, p.kind, channels, loopBytes};
}

// The steps of a ring's chain: rank r's step i begins when its step i - 1
// has received from r - 1, whose send of step i - 1 was posted when r - 1
// began that step; so each step of a ring adds at least a step's latency and
// a message's hop latency to the one before it, around the ring. 0 for
// other algorithms (no such chain is known by their name).
int ringChainSteps(const RunRequest& req, int ranks) {
  if (req.algorithm->name != "ring") return 0;
  if (req.op == Collective::AllReduce) return 2 * (ranks - 1);
  if (req.op == Collective::ReduceScatter || req.op == Collective::AllGather) return ranks - 1;
  return 0;
}

// No run of protocol `shape` can beat this: the launch, and the longer of
// each rank's share of the bus bytes through its channels at the
// protocol's bandwidth and a ring's chain of step and hop latencies (on
// 2,048 ranks and more, Simple's 3.4 us a hop past the whole of LL's run).
double lowerBoundUs(const RunShape& shape, const RunRequest& req, const Cluster& cluster) {
  const int ranks = cluster.ranks();
  double bandwidth = 0;
  if (shape.costs.laneBandwidth > 0)
    bandwidth = double(req.bytes) * busBandwidthFactor(req.op, ranks) /
                double(shape.costs.laneBandwidth * Bandwidth(shape.channels)) * 1e6;
  const StepCosts& c = shape.costs;
  const bool across = cluster.servers > 1;
  const Time hop = across ? std::min(c.intraHop, c.interHop) : c.intraHop;
  const Time step = across ? std::min(c.intraStep, c.interStep) : c.intraStep;
  const double chain = double(ringChainSteps(req, ranks)) * (toMicroseconds(hop) + toMicroseconds(step));
  return toMicroseconds(c.launch) + std::max(bandwidth, chain);
}

} // namespace

// One collective over `bytes`, without loops.
static CollectiveRun simulateOnce(const Cluster& cluster, const RunRequest& req, const RunShape& shape, Bytes bytes,
                                  TraceRecorder* trace);
static CollectiveRun simulateShape(const Cluster& cluster, const RunRequest& req, const RunShape& shape,
                                   TraceRecorder* trace);

// Chunk loops settle into a steady state after a few: every further loop
// adds the same time, bytes and events (each rank repeats the same steps on
// the next slice). Past kSteadyLoops loops, the run of kSteadyLoops loops and
// the run of half as many give that increment, and the rest is extended
// along it. Exact for a periodic schedule on a network without jitter.
constexpr Bytes kSteadyLoops = 8;

// Whether simulateSteady runs the whole buffer (else kSteadyLoops loops
// and half as many, extended).
static bool runsWhole(const RunRequest& req, const RunShape& shape) {
  return shape.loopBytes == 0 || req.loopBytes > 0 || req.bytes <= 2 * kSteadyLoops * shape.loopBytes;
}

static CollectiveRun simulateSteady(const Cluster& cluster, const RunRequest& req, const RunShape& shape) {
  if (runsWhole(req, shape)) return simulateShape(cluster, req, shape, nullptr);
  RunRequest part = req;
  part.bytes = kSteadyLoops * shape.loopBytes;
  CollectiveRun run = simulateShape(cluster, part, shape, nullptr);
  part.bytes /= 2;
  part.verify = false;
  const CollectiveRun halfRun = simulateShape(cluster, part, shape, nullptr);
  const ExecutionResult& half = halfRun.execution;
  run.simulatedEvents += halfRun.simulatedEvents;
  double more = (double(req.bytes) / double(shape.loopBytes) - double(kSteadyLoops)) / double(kSteadyLoops / 2);
  ExecutionResult& x = run.execution;
  auto extend = [more](auto& full, auto halfValue) {
    full += static_cast<std::remove_reference_t<decltype(full)>>(std::llround(more * double(full - halfValue)));
  };
  extend(x.finish, half.finish);
  extend(x.events, half.events);
  extend(x.messages, half.messages);
  extend(x.bytesSent, half.bytesSent);
  extend(x.bytesReceived, half.bytesReceived);
  std::uint32_t elemSize = dataTypeInfo(req.dtype).bytes;
  run.count = req.bytes / elemSize;
  run.bytes = run.count * elemSize;
  return run;
}

// The shape of each protocol the library may run `req` under: those that
// allow its size, and reduce in the network if the algorithm does.
static std::vector<RunShape> candidateShapes(const Cluster& cluster, const RunRequest& req) {
  std::vector<RunShape> shapes;
  const bool inNetwork = req.algorithm->reducesInNetwork();
  for (const ProtocolModel* p : req.library.candidatesFor(req.bytes))
    if (!inNetwork || p->inNetwork) shapes.push_back(protocolShape(cluster, req, *p));
  return shapes;
}

CollectiveRun simulateCollective(const Cluster& cluster, const RunRequest& req, TraceRecorder* trace) {
  if (req.library.ideal()) {
    return simulateShape(cluster, req, idealShape(cluster, req), trace);
  }
  // The most promising first, so that the bound prunes the others.
  std::vector<std::pair<double, RunShape>> shapes;
  const bool inNetwork = req.algorithm->reducesInNetwork();
  for (RunShape& shape : candidateShapes(cluster, req))
    shapes.emplace_back(lowerBoundUs(shape, req, cluster), std::move(shape));
  std::stable_sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::optional<CollectiveRun> best;
  std::uint64_t events = 0;
  for (const auto& [bound, shape] : shapes) {
    if (best && bound >= best->timeUs()) continue;
    CollectiveRun run = simulateSteady(cluster, req, shape);
    events += run.simulatedEvents;
    if (!best || run.execution.finish < best->execution.finish) best = std::move(run);
  }
  if (!best && inNetwork)
    throw InputError(req.algorithm->name + " reduces in the network, which library " + std::string(req.library.name()) +
                     " does under none of the protocols allowed (" + req.library.protocol.text() + ")");
  if (!best) throw InputError("library " + std::string(req.library.name()) + " has no protocol " + req.library.protocol.text());
  best->simulatedEvents = events;
  if (trace) return simulateShape(cluster, req, protocolShape(cluster, req, *req.library.find(*best->protocol)), trace);
  return *best;
}

WorkEstimate estimateCollectiveRun(const CollectiveEstimator& estimate, const Cluster& cluster,
                                   const RunRequest& req) {
  const std::uint32_t elemSize = dataTypeInfo(req.dtype).bytes;
  auto work = [&](const AlgorithmEntry& entry, Bytes bytes, const StepCosts* costs = nullptr) {
    CollectiveWork w{req.op, &entry, bytes, elemSize, req.root, req.segment, req.fidelity, req.loopBytes,
                     req.roce.mtu, req.roce.queuePairs, req.symmetry, req.algorithm->name};
    if (costs) {
      w.eventsPerSend = (costs->intraHop > 0 || costs->interHop > 0 ? 1 : 0) + (costs->slots > 0 ? 1 : 0) +
                        (cluster.device.stepOverhead == 0 && (costs->intraStep > 0 || costs->interStep > 0) ? 1 : 0);
      w.stepLatencySeconds = toSeconds(std::min(costs->intraHop, costs->interHop)) +
                             toSeconds(std::min(costs->intraStep, costs->interStep));
      w.laneBandwidth = costs->laneBandwidth;
    }
    return estimate(w);
  };
  if (req.library.ideal()) return work(*req.algorithm, req.bytes);
  // Every candidate protocol as simulateCollective builds it, each as
  // simulateSteady runs it: the whole buffer, or a run of kSteadyLoops
  // loops and one of half as many, extended along them. The bound prunes as
  // the run's does, against the simulated time estimated for those before
  // (the estimate's chain has no contention: where contention is what slows
  // the first protocol, it prunes more than the run).
  std::vector<std::pair<double, RunShape>> shapes;
  for (RunShape& shape : candidateShapes(cluster, req))
    shapes.emplace_back(lowerBoundUs(shape, req, cluster), std::move(shape));
  std::stable_sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  WorkEstimate total;
  double best = -1; // the fastest shape so far, in simulated us
  for (const auto& [bound, shape] : shapes) {
    if (best >= 0 && bound >= best) continue;
    WorkEstimate runs = work(shape.entry, runsWhole(req, shape) ? req.bytes : kSteadyLoops * shape.loopBytes, &shape.costs);
    double us = runs.simulatedSeconds * 1e6; // the whole buffer's
    if (!runsWhole(req, shape)) {
      us *= double(req.bytes) / double(kSteadyLoops * shape.loopBytes);
      runs.addSequential(work(shape.entry, kSteadyLoops / 2 * shape.loopBytes, &shape.costs));
    }
    total.addSequential(runs);
    best = best < 0 ? std::max(us, bound) : std::min(best, std::max(us, bound));
  }
  return total;
}

static CollectiveRun simulateShape(const Cluster& cluster, const RunRequest& req, const RunShape& shape,
                                   TraceRecorder* trace) {
  if (req.loopBytes == 0 || req.bytes <= req.loopBytes) return simulateOnce(cluster, req, shape, req.bytes, trace);
  // HCCL runs data larger than its buffer as loops of the buffer's size, one
  // after another: full loops take the same time, so one of them is simulated.
  Bytes loops = req.bytes / req.loopBytes, rest = req.bytes % req.loopBytes;
  CollectiveRun run = simulateOnce(cluster, req, shape, req.loopBytes, trace);
  ExecutionResult& x = run.execution;
  x.finish *= Time(loops);
  x.events *= loops;
  x.messages *= loops;
  x.bytesSent *= loops;
  x.bytesReceived *= loops;
  if (rest > 0) {
    RunRequest tail = req;
    tail.verify = false;
    CollectiveRun last = simulateOnce(cluster, tail, shape, rest, nullptr);
    run.simulatedEvents += last.simulatedEvents;
    x.finish += last.execution.finish;
    x.events += last.execution.events;
    x.messages += last.execution.messages;
    x.bytesSent += last.execution.bytesSent;
    x.bytesReceived += last.execution.bytesReceived;
  }
  std::uint32_t elemSize = dataTypeInfo(req.dtype).bytes;
  run.count = req.bytes / elemSize;
  run.bytes = run.count * elemSize;
  return run;
}

static CollectiveRun simulateOnce(const Cluster& cluster, const RunRequest& request, const RunShape& shape, Bytes bytes,
                                  TraceRecorder* trace) {
  RunRequest req = request;
  req.algorithm = &shape.entry;
  std::uint32_t elemSize = dataTypeInfo(req.dtype).bytes;
  CollectiveSpec spec{req.op, cluster.ranks(), bytes / elemSize, elemSize, req.root};
  spec.devicesPerServer = layoutOf(cluster, req.op).devicesPerServer;
  if (std::string why = req.algorithm->unsupported(spec); !why.empty())
    throw InputError(std::string(req.algorithm->name) + " cannot run on " + std::to_string(spec.ranks) +
                             " ranks: " + why);
  bool checked = req.verify && verifyAlgorithm(*req.algorithm, req.op, spec.ranks, elemSize, spec.devicesPerServer);

  auto build = [&] { return buildSchedule(*req.algorithm, spec); };
  // What the schedule depends on beyond the algorithm's name: the spec, and
  // the shape's channels and chunk loops (loopBytes: the chunk times the
  // pieces of a loop), on one cluster.
  const std::shared_ptr<const Schedule> schedule =
      req.schedules ? req.schedules->get(std::string(req.algorithm->name) + "|" + std::to_string(int(req.op)) + "|" +
                                             std::to_string(spec.ranks) + "|" + std::to_string(spec.count) + "|" +
                                             std::to_string(spec.elemSize) + "|" + std::to_string(spec.root) + "|" +
                                             std::to_string(spec.devicesPerServer) + "|" +
                                             std::to_string(shape.channels) + "|" + std::to_string(shape.loopBytes),
                                         build)
                    : std::shared_ptr<const Schedule>(build());
  CollectiveSymmetry fold;
  fold.why = collectiveFoldRuledOut(cluster, req.symmetry, req.fidelity, trace != nullptr);
  if (fold.why.empty()) fold = findCollectiveSymmetry(cluster, *schedule, req.op, request.algorithm->name, elemSize);
  auto execute = [&](const CollectiveSymmetry* folded) {
    EventEngine engine;
    std::unique_ptr<Network> network = makeNetwork(engine, cluster, {req.fidelity, req.segment, req.seed, req.roce});
    if (folded && !network->fold(folded->channelFold, folded->symmetry->copies()))
      throw SymmetryBroken("the network model cannot be folded");
    TraceSink* sink = nullptr;
    if (trace) {
      std::string label = std::string(collectiveName(req.op)) + " " + req.algorithm->name + " " + formatBytes(spec.bytes());
      sink = trace->beginRun(req.studyPoint.empty() ? label : label + " [" + req.studyPoint + "]", cluster);
      network->setTrace(sink);
    }
    ScheduleExecutor executor(engine, *network, cluster, *schedule, sink, folded ? &*folded->symmetry : nullptr);
    executor.setCosts(shape.costs);
    return executor.run();
  };
  std::optional<ExecutionResult> execution;
  if (fold.symmetry) {
    try {
      execution = execute(&fold);
    } catch (const SymmetryBroken& e) { // met at run time (a route with a choice of paths): all ranks run
      fold = CollectiveSymmetry{};
      fold.why = e.what();
    }
  }
  if (!execution) execution = execute(nullptr);
  const std::uint64_t events = execution->events;
  return {req.op,           req.algorithm->name, spec.ranks, req.dtype,
          spec.count,       spec.bytes(),        std::move(*execution), checked,
          shape.protocol,   shape.channels,      events,      fold.simulatedRanks(spec.ranks),
          fold.text()};
}

} // namespace collsim
