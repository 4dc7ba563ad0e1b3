// collsim verify: run an algorithm's schedule on real data over a real
// transport and check every rank's result (exit status 0 correct, 1 wrong).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <sstream>

#include "algorithms/check/symbolic_checker.h"
#include "sim/core/closest_name.h"
#include "algorithms/core/registry.h"
#include "algorithms/transports/threads/run_threads.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"

namespace collsim {
namespace {

// What a run on threads holds and takes, from its schedule: every rank's
// buffer, and the messages of each rank's largest step twice (the
// sender's copy in flight and the receiver's), measured within 3 % for
// ring, rhd and mesh AllReduce and Broadcast on 8 ranks of 64 MiB
// (AllToAll holds twice its buffer: 4.0 x measured, 2.25 x estimated);
// the time at about 8 ns per byte sent, reduced and checked, as ring
// AllReduce on 4 and 8 ranks took on two cores.
WorkEstimate estimateThreadsRun(const Schedule& schedule, const CollectiveSpec& spec) {
  double sent = 0, inFlight = 0;
  std::vector<Op> ops;
  for (int rank = 0; rank < schedule.ranks(); ++rank) {
    double largestStep = 0;
    for (int k = 0; k < schedule.streamCount(); ++k) {
      const Schedule& stream = schedule.stream(k);
      double largest = 0;
      for (int step = 0; step < stream.stepCount(rank); ++step) {
        ops.clear();
        stream.appendOps(rank, step, ops);
        double bytes = 0;
        for (const Op& op : ops) bytes += op.kind == OpKind::Send ? double(op.bytes) : 0;
        sent += bytes, largest = std::max(largest, bytes);
      }
      largestStep += largest;
    }
    inFlight += 2 * largestStep;
  }
  WorkEstimate e;
  e.memoryBytes = double(schedule.ranks()) * double(spec.bufferBytes()) + inFlight + double(32 << 20);
  e.wallSeconds = sent * 8e-9 + 1e-3;
  return e;
}

struct VerifyOptions {
  std::string transport = "threads", op = "allreduce", algo = "ring", dtype = "float32", redop = "sum";
  std::string bytes = "1MiB", out;
  OutputFormat format = OutputFormat::Table;
  int ranks = 8, root = 0, devicesPerServer = 0;
  double timeoutSeconds = 60;
  WorkLimitOptions limits; // the ranks' buffers, before they are allocated
};

int verify(const VerifyOptions& v, CliStreams io) {
  if (v.transport != "threads")
    throw UsageError("--transport: '" + v.transport + "' is not available here (threads; MPI comes as collsim-mpi)");
  CollectiveSpec spec;
  if (!parseCollective(v.op, spec.op)) throw UsageError("--op: " + unknownName("collective", v.op, collectiveNames()));
  auto algo = findAlgorithm(spec.op, v.algo);
  if (!algo) throw UsageError("--algo: no algorithm '" + v.algo + "' for " + v.op + didYouMean(v.algo, algorithmNames(spec.op)));
  if (v.ranks < 1 || v.ranks > 1024) throw UsageError("--ranks must be 1..1024 (one thread each)");
  if (v.devicesPerServer < 0 || (v.devicesPerServer > 0 && v.ranks % v.devicesPerServer))
    throw UsageError("--devices-per-server must divide --ranks");
  if (v.root < 0 || v.root >= v.ranks) throw UsageError("--root: no rank " + std::to_string(v.root));
  spec.ranks = v.ranks;
  spec.devicesPerServer = v.devicesPerServer;
  spec.root = v.root;
  if (std::string why = algo->unsupported(spec); !why.empty())
    throw UsageError("--algo: " + v.algo + " cannot run on " + std::to_string(v.ranks) + " ranks: " + why);
  DataType type;
  if (!parseDataType(v.dtype, type)) throw UsageError("--dtype: " + unknownName("type", v.dtype, dataTypeNames()));
  ReduceOp redop;
  if (!parseReduceOp(v.redop, redop)) throw UsageError("--redop: '" + v.redop + "' is not sum, max or min");
  bool reduces = spec.op == Collective::AllReduce || spec.op == Collective::ReduceScatter || spec.op == Collective::Reduce;
  if (reduces && !canReduce(type)) throw UsageError("--dtype: the transports cannot reduce " + v.dtype);
  if (!(v.timeoutSeconds > 0)) throw UsageError("--timeout must be positive");

  Bytes bytes = optionBytes("--bytes", v.bytes);
  spec.ranks = v.ranks;
  spec.elemSize = dataTypeInfo(type).bytes;
  spec.count = bytes / spec.elemSize; // whole elements, as nccl-tests rounds
  spec.root = v.root;

  SchedulePtr schedule = buildSchedule(*algo, spec);
  if (!checkWork(v.limits, 1, "verify", io, [&](const WorkLimits*) { return estimateThreadsRun(*schedule, spec); }))
    return 0;
  RunOptions options{type, redop, std::chrono::milliseconds(std::int64_t(v.timeoutSeconds * 1000))};
  RealRunReport report = runWithThreads(*schedule, spec, options);

  std::uint64_t bytesMoved = 0;
  for (const auto& d : report.deliveries) bytesMoved += d.bytes;
  std::string text;
  if (v.format == OutputFormat::Json) {
    nlohmann::ordered_json j = {{"tool", "collsim"},           {"command", "verify"},
                                {"transport", v.transport},    {"op", v.op},
                                {"algorithm", v.algo},         {"ranks", v.ranks},
                                {"bytes", spec.bytes()},       {"count", spec.count},
                                {"dtype", v.dtype},            {"redop", v.redop},
                                {"ok", report.ok()},           {"wrong_elements", report.wrong},
                                {"first_wrong", report.firstWrong}, {"errors", report.errors},
                                {"messages", report.deliveries.size()}, {"bytes_moved", bytesMoved},
                                {"seconds", report.seconds}};
    text = j.dump(2) + "\n";
  } else {
    std::ostringstream os;
    os << "# collsim verify: " << v.op << " " << v.algo << " on " << v.ranks << " ranks, transport " << v.transport
       << "\n# " << spec.count << " " << v.dtype << " elements (" << spec.bytes() << " bytes";
    if (spec.bytes() != bytes) os << ", " << bytes << " rounded down to whole elements";
    os << "), redop " << v.redop << "\n";
    os << (report.ok() ? "OK" : "WRONG") << ": " << report.wrong << " wrong elements, " << report.deliveries.size()
       << " messages, " << bytesMoved << " bytes moved, " << report.seconds << " s\n";
    if (!report.firstWrong.empty()) os << "first wrong: " << report.firstWrong << "\n";
    for (const auto& e : report.errors) os << "error: " << e << "\n";
    text = os.str();
  }
  emit(text, v.out, io);
  return report.ok() ? 0 : 1;
}

} // namespace

Command addVerifyCommand(CLI::App& app) {
  auto v = std::make_shared<VerifyOptions>();
  auto* cmd = app.add_subcommand("verify", "run an algorithm on real buffers over a real transport and check the result");
  cmd->add_option("--transport", v->transport, "threads (one thread per rank)")->capture_default_str();
  cmd->add_option("--op", v->op, "collective")->capture_default_str();
  cmd->add_option("--algo", v->algo, "algorithm (see collsim algorithms)")->capture_default_str();
  cmd->add_option("--ranks", v->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("--devices-per-server", v->devicesPerServer, "server layout for hierarchical algorithms (0: one server)");
  cmd->add_option("--bytes", v->bytes, "buffer size per rank (rounded down to whole elements)")->capture_default_str();
  cmd->add_option("-d,--dtype", v->dtype, "int8, int32, float32, float64")->capture_default_str();
  cmd->add_option("--redop", v->redop, "sum, max or min")->capture_default_str();
  cmd->add_option("-r,--root", v->root, "root rank of broadcast and reduce")->capture_default_str();
  cmd->add_option("--timeout", v->timeoutSeconds, "seconds a rank waits for a peer")->capture_default_str();
  addFormatOption(cmd, v->format, kReportFormats);
  cmd->add_option("--out", v->out, "write the result to FILE");
  addWorkLimitOptions(cmd, v->limits);
  return {cmd, [v](CliStreams io) { return verify(*v, io); }};
}

} // namespace collsim
