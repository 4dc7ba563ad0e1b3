// collsim schedule: writes an algorithm's schedule for a number of ranks as
// a schedule file (sim/config/schedule_file.h), which `--algo file:PATH`
// runs; a starting point for an algorithm of one's own.
#include <CLI/CLI.hpp>

#include "algorithms/core/chunked_schedule.h"
#include "sim/core/closest_name.h"
#include "sim/cli/command.h"
#include "sim/config/schedule_file.h"

namespace collsim {
namespace {

struct ScheduleOptions {
  std::string op = "allreduce", algo = "ring", out;
  int ranks = 8, devicesPerServer = 0, root = 0, chunks = 0;
};

int writeSchedule(const ScheduleOptions& o, CliStreams io) {
  CollectiveSpec spec;
  if (!parseCollective(o.op, spec.op)) throw UsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  if (o.ranks < 1 || o.ranks > (1 << 16)) throw UsageError("--ranks must be 1..65536");
  if (o.devicesPerServer < 0 || (o.devicesPerServer > 0 && o.ranks % o.devicesPerServer))
    throw UsageError("--devices-per-server must divide --ranks");
  if (o.root < 0 || o.root >= o.ranks) throw UsageError("--root: no rank " + std::to_string(o.root));
  const int chunks = o.chunks == 0 ? o.ranks : o.chunks;
  if (chunks < 1 || chunks > (1 << 20) || chunks % o.ranks)
    throw UsageError("--chunks: " + std::to_string(chunks) + " is not a multiple of --ranks (" + std::to_string(o.ranks) +
                     ") up to 1048576");
  // Before the schedule is made: at 65,536 ranks it would take hours to be refused.
  if (std::string why = scheduleFileTooLarge(o.ranks, chunks); !why.empty())
    throw UsageError("--ranks " + std::to_string(o.ranks) + " --chunks " + std::to_string(chunks) + ": " + why +
                     ", so the file could not be read back; write it for fewer ranks or chunks");
  auto algo = findAlgorithm(spec.op, o.algo);
  if (!algo) throw UsageError("--algo: no algorithm '" + o.algo + "' for " + o.op + didYouMean(o.algo, algorithmNames(spec.op)) + " (collsim algorithms lists them)");
  spec.ranks = o.ranks;
  spec.devicesPerServer = o.devicesPerServer;
  spec.root = o.root;
  ChunkedSchedule s;
  try {
    s = chunksOf(*algo, spec, chunks);
  } catch (const std::invalid_argument& e) {
    throw UsageError("--algo: " + o.algo + " on " + std::to_string(o.ranks) + " ranks cannot be written: " + e.what());
  }
  // A pipeline cut by message size is written as the cut at these chunks:
  // the file is that schedule at every size.
  if (algo->pipelinesChunks)
    io.err << "collsim: note: " << o.algo << " cuts its pipeline by message size; the file fixes it as cut into "
           << chunks << " chunks, so it times as " << o.algo << " only at sizes where that is its own cut\n";
  emit(scheduleFileText(s), o.out, io);
  return 0;
}

} // namespace

Command addScheduleCommand(CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  auto* cmd = app.add_subcommand("schedule", "write an algorithm's schedule as a file that --algo file:PATH runs");
  cmd->add_option("--op", o->op, "collective (not alltoall)")->capture_default_str();
  cmd->add_option("--algo", o->algo, "algorithm (see collsim algorithms)")->capture_default_str();
  cmd->add_option("--ranks", o->ranks, "number of ranks")->capture_default_str();
  cmd->add_option("--devices-per-server", o->devicesPerServer, "server layout for hierarchical algorithms (0: one server)");
  cmd->add_option("-r,--root", o->root, "root rank of broadcast and reduce")->capture_default_str();
  cmd->add_option("--chunks", o->chunks, "chunks the buffer is cut into, a multiple of --ranks (default: --ranks)");
  cmd->add_option("--out", o->out, "write the file to FILE (default: standard output)");
  return {cmd, [o](CliStreams io) { return writeSchedule(*o, io); }};
}

} // namespace collsim
