#include "sim/run/simulate.h"

#include <stdexcept>

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/channels.h"
#include "sim/core/input_error.h"
#include "sim/network/network_models.h"
#include "sim/trace/trace_recorder.h"

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

// One collective over `bytes`, without loops.
static CollectiveRun simulateOnce(const Cluster& cluster, const RunRequest& req, Bytes bytes, TraceRecorder* trace);

CollectiveRun simulateCollective(const Cluster& cluster, const RunRequest& req, TraceRecorder* trace) {
  if (req.loopBytes == 0 || req.bytes <= req.loopBytes) return simulateOnce(cluster, req, req.bytes, trace);
  // HCCL runs data larger than its buffer as loops of the buffer's size, one
  // after another: full loops take the same time, so one of them is simulated.
  Bytes loops = req.bytes / req.loopBytes, rest = req.bytes % req.loopBytes;
  CollectiveRun run = simulateOnce(cluster, req, req.loopBytes, trace);
  ExecutionResult& x = run.execution;
  x.finish *= Time(loops);
  x.events *= loops;
  x.messages *= loops;
  x.bytesSent *= loops;
  x.bytesReceived *= loops;
  if (rest > 0) {
    RunRequest tail = req;
    tail.verify = false;
    CollectiveRun last = simulateOnce(cluster, tail, rest, nullptr);
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

static CollectiveRun simulateOnce(const Cluster& cluster, const RunRequest& request, Bytes bytes, TraceRecorder* trace) {
  const AlgorithmEntry channelled = withChannels(*request.algorithm, request.channels);
  RunRequest req = request;
  req.algorithm = &channelled;
  std::uint32_t elemSize = dataTypeInfo(req.dtype).bytes;
  CollectiveSpec spec{req.op, cluster.ranks(), bytes / elemSize, elemSize, req.root};
  spec.devicesPerServer = layoutOf(cluster, req.op).devicesPerServer;
  if (std::string why = req.algorithm->unsupported(spec); !why.empty())
    throw InputError(std::string(req.algorithm->name) + " cannot run on " + std::to_string(spec.ranks) +
                             " ranks: " + why);
  bool checked = req.verify && verifyAlgorithm(*req.algorithm, req.op, spec.ranks, elemSize, spec.devicesPerServer);

  SchedulePtr schedule = buildSchedule(*req.algorithm, spec);
  EventEngine engine;
  std::unique_ptr<Network> network = makeNetwork(engine, cluster, {req.fidelity, req.segment, req.seed, req.roce});
  TraceSink* sink = nullptr;
  if (trace) {
    sink = trace->beginRun(std::string(collectiveName(req.op)) + " " + req.algorithm->name + " " +
                               formatBytes(spec.bytes()),
                           cluster);
    network->setTrace(sink);
  }
  ScheduleExecutor executor(engine, *network, cluster, *schedule, sink);
  CollectiveRun run{req.op, req.algorithm->name, spec.ranks, req.dtype, spec.count, spec.bytes(), executor.run(), checked};
  return run;
}

} // namespace collsim
