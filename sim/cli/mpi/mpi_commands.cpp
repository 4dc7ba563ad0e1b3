#include "sim/config/schedule_file.h"
#include "sim/core/closest_name.h"
#include "sim/report/provenance.h"
#include "sim/cli/mpi/mpi_commands.h"

#include <mpi.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "algorithms/transports/transport.h"
#include "sim/cli/command.h"
#include "sim/cli/suggest.h"
#include "sim/cli/common_options.h"
#include "sim/cli/mpi/mpi_command.h"
#include "sim/study/output_file.h"
#include "sim/report/text_table.h"
#include "sim/core/printable.h"
#include "sim/core/units.h"
#include "sim/config/config_node.h"
#include "sim/scenario/scenario.h"

namespace collsim {
namespace {

struct PerfOptions {
  std::string op = "allreduce", algo = "ring", dtype = "float32", redop = "sum", begin = "8", end = "256MiB";
  OutputFormat format = OutputFormat::Table;
  double factor = 2;
  int root = 0, devicesPerServer = -1, warmup = 5, iterations = 20;
  double timeoutSeconds = 60;
};

int perf(const PerfOptions& o, MpiRunner& runner, std::ostream& out) {
  if (std::string warning = runner.oversubscription(); !warning.empty() && runner.rank() == 0)
    std::cerr << "collsim-mpi: " << warning << "\n";
  CollectiveSpec base;
  if (!parseCollective(o.op, base.op)) throw MpiUsageError("--op: " + unknownName("collective", o.op, collectiveNames()));
  DataType type;
  if (!parseDataType(o.dtype, type)) throw MpiUsageError("--dtype: " + unknownName("type", o.dtype, dataTypeNames()));
  ReduceOp redop;
  if (!parseReduceOp(o.redop, redop)) throw MpiUsageError("--redop: '" + o.redop + "' is not sum, max or min");
  if (!canReduce(type)) throw MpiUsageError("--dtype: the transports cannot reduce " + o.dtype);
  std::vector<Bytes> sizes = sweepSizes(o.begin, o.end, o.factor);
  if (o.iterations < 1 || o.warmup < 0) throw MpiUsageError("--iters must be >= 1 and --warmup >= 0");
  base.ranks = runner.size();
  base.elemSize = dataTypeInfo(type).bytes;
  base.root = o.root;
  base.devicesPerServer = o.devicesPerServer >= 0 ? o.devicesPerServer : runner.hostLayout();
  if (o.root < 0 || o.root >= base.ranks) throw MpiUsageError("--root: no rank " + std::to_string(o.root));
  if (base.devicesPerServer > 0 && base.ranks % base.devicesPerServer)
    throw MpiUsageError("--devices-per-server must divide the number of ranks");

  std::vector<std::string> names = o.algo == "all" ? algorithmNames(base.op) : std::vector<std::string>{o.algo};
  std::vector<AlgorithmEntry> algos;
  for (const auto& n : names) {
    auto a = findAlgorithm(base.op, n);
    if (!a) throw MpiUsageError("--algo: no algorithm '" + n + "' for " + o.op + didYouMean(n, algorithmNames(base.op)));
    if (std::string why = a->unsupported(base); !why.empty()) throw MpiUsageError("--algo: " + n + ": " + why);
    algos.push_back(*a);
  }

  bool anyWrong = false;
  nlohmann::ordered_json results = nlohmann::ordered_json::array(), averages = nlohmann::ordered_json::object();
  if (o.format == OutputFormat::Csv)
    out << "op,algorithm,ranks,bytes,count,dtype,redop,time_us,min_us,max_us,algbw_GBps,busbw_GBps,wrong\n";
  for (const auto& algo : algos) {
    if (o.format == OutputFormat::Table) {
      out << "# collsim-mpi perf: " << o.op << " " << algo.name << " on " << base.ranks << " MPI ranks"
          << (base.devicesPerServer > 0 ? ", " + std::to_string(base.devicesPerServer) + " per server" : "")
          << "; warm-up " << o.warmup << ", " << o.iterations << " iterations, results checked\n"
          << "# time: each iteration's slowest rank; avg, min and max over the iterations\n"
          << "#        size        count     type  redop  root       avg_us       min_us       max_us   algbw_GB/s   "
             "busbw_GB/s  #wrong\n";
    }
    double busbwSum = 0;
    std::uint64_t algoWrong = 0;
    for (Bytes size : sizes) {
      CollectiveSpec spec = base;
      spec.count = size / spec.elemSize;
      MpiRunResult r = runner.run(algo, spec, type, redop, o.warmup, o.iterations,
                                  std::chrono::milliseconds(std::int64_t(o.timeoutSeconds * 1000)));
      anyWrong = anyWrong || r.wrong > 0;
      algoWrong += r.wrong;
      double algbw = r.seconds > 0 ? double(spec.bytes()) / r.seconds / 1e9 : 0;
      double busbw = algbw * busBandwidthFactor(spec.op, spec.ranks);
      busbwSum += busbw;
      if (o.format == OutputFormat::Table) {
        char line[256];
        std::snprintf(line, sizeof line, "  %12llu %12llu %8s %6s %5d %12.2f %12.2f %12.2f %12.3f %12.3f %7llu\n",
                      (unsigned long long)spec.bytes(), (unsigned long long)spec.count, o.dtype.c_str(),
                      o.redop.c_str(), spec.root, r.seconds * 1e6, r.minSeconds * 1e6, r.maxSeconds * 1e6, algbw,
                      busbw, (unsigned long long)r.wrong);
        out << line;
      } else if (o.format == OutputFormat::Csv) {
        out << csvRow({o.op, algo.name, std::to_string(spec.ranks), std::to_string(spec.bytes()),
                       std::to_string(spec.count), o.dtype, o.redop, fixed(r.seconds * 1e6, 3),
                       fixed(r.minSeconds * 1e6, 3), fixed(r.maxSeconds * 1e6, 3), fixed(algbw, 6), fixed(busbw, 6),
                       std::to_string(r.wrong)});
      } else {
        results.push_back({{"op", o.op}, {"algorithm", algo.name}, {"ranks", spec.ranks}, {"bytes", spec.bytes()},
                           {"count", spec.count}, {"dtype", o.dtype}, {"redop", o.redop}, {"time_us", r.seconds * 1e6},
                           {"min_us", r.minSeconds * 1e6}, {"max_us", r.maxSeconds * 1e6}, {"algbw_GBps", algbw},
                           {"busbw_GBps", busbw}, {"wrong", r.wrong}});
      }
    }
    // nccl-tests' closing lines: the mean bus bandwidth over the sizes.
    double average = busbwSum / double(sizes.size());
    averages[algo.name] = average;
    if (o.format == OutputFormat::Table) {
      char line[128];
      std::snprintf(line, sizeof line, "# Out of bounds values : %llu %s\n# Avg bus bandwidth    : %g\n",
                    (unsigned long long)algoWrong, algoWrong ? "FAILED" : "OK", average);
      out << line;
    }
  }
  if (o.format == OutputFormat::Json)
    out << nlohmann::ordered_json{{"tool", "collsim-mpi"}, {"results", results}, {"avg_busbw_GBps", averages}}.dump(2)
        << "\n";
  return anyWrong ? 1 : 0;
}

// Every algorithm and collective, and hierarchical ones on the layouts the
// rank count allows, on awkward sizes: exact results through MPI.
int selftest(MpiRunner& runner, std::ostream& out) {
  const int p = runner.size();
  int passed = 0, failed = 0;
  auto check = [&](const AlgorithmEntry& algo, int devicesPerServer) {
    for (std::uint64_t count : {0ULL, 1ULL, 7ULL, 1000ULL, 100003ULL}) {
      CollectiveSpec spec{algo.op, p, count, 4, p > 2 ? p - 2 : 0, devicesPerServer};
      if (!algo.unsupported(spec).empty()) return;
      MpiRunResult r = runner.run(algo, spec, DataType::Float32, ReduceOp::Sum, 0, 0, std::chrono::milliseconds(20'000));
      if (r.wrong == 0) {
        ++passed;
      } else {
        ++failed;
        out << "FAILED " << collectiveName(algo.op) << " " << algo.name << " p=" << p << " count=" << count
            << ": " << r.wrong << " wrong elements\n";
      }
    }
  };
  for (const auto& algo : algorithmRegistry()) check(algo, 0);
  for (int d : {2, 3, 4}) {
    if (p % d || p / d < 2) continue;
    for (auto [op, name] : {std::pair{Collective::AllReduce, "hier:ring+rhd"}, {Collective::AllReduce, "hierpipe:mesh+nhr"},
                            {Collective::ReduceScatter, "hier:ring+nb"}, {Collective::AllGather, "hier:mesh+rhd"},
                            {Collective::Broadcast, "hier:ring+ring"}})
      check(*findAlgorithm(op, name), d);
  }
  out << "collsim-mpi selftest on " << p << " ranks:\n" << passed << " passed, " << failed << " failed\n";
  return failed ? 1 : 0;
}

} // namespace

std::vector<Bytes> sweepSizes(const std::string& b, const std::string& e, double factor) {
  Bytes lo, hi;
  try {
    lo = parseBytes(b);
    hi = parseBytes(e);
  } catch (const UnitError& x) {
    throw MpiUsageError(std::string("-b/-e: ") + x.what());
  }
  if (lo > hi || !(factor > 1)) throw MpiUsageError("need -b <= -e and -f > 1");
  return geometricSizes(lo, hi, factor);
}

MpiCommand addMpiPerfCommand(CLI::App& app) {
  auto po = std::make_shared<PerfOptions>();
  auto* cmd = app.add_subcommand("perf", "nccl-tests style sweep, measured over MPI, results checked");
  cmd->add_option("--op", po->op, "collective")->capture_default_str();
  cmd->add_option("--algo", po->algo, "algorithm, hierarchical name, or all")->capture_default_str();
  addSizeSweepOptions(cmd, po->begin, po->end, po->factor);
  cmd->add_option("-d,--dtype", po->dtype, "int8, int32, float32, float64")->capture_default_str();
  cmd->add_option("-o,--redop", po->redop, "sum, max or min")->capture_default_str();
  cmd->add_option("-r,--root", po->root, "root of broadcast and reduce")->capture_default_str();
  cmd->add_option("--devices-per-server", po->devicesPerServer, "server layout (default: from the MPI host layout)");
  cmd->add_option("-w,--warmup", po->warmup, "warm-up iterations")->capture_default_str();
  cmd->add_option("-n,--iters", po->iterations, "timed iterations")->capture_default_str();
  addPeerTimeoutOption(cmd, po->timeoutSeconds);
  addFormatOption(cmd, po->format, kMeasuredFormats);
  return {cmd, [po](MpiRunner& runner, std::ostream& out) { return perf(*po, runner, out); }};
}

MpiCommand addMpiSelftestCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("selftest", "every algorithm and collective exact through MPI");
  return {cmd, [](MpiRunner& runner, std::ostream& out) { return selftest(runner, out); }};
}

void addPeerTimeoutOption(CLI::App* cmd, double& seconds) {
  cmd->add_option("--timeout", seconds, "seconds a rank waits for a peer before every rank stops (exit 4)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

int runMpiCli(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"collsim-mpi: collsim's algorithms over MPI point-to-point messages"};
  app.require_subcommand(1);
  registerScheduleFiles();
  std::string commandLine, outPath;
  std::vector<MpiCommand> commands = {addMpiPerfCommand(app), addMpiSelftestCommand(app),
                                      addMpiSweepCommand(app, commandLine),
                                      addMpiCalibrateCommand(app), addMpiCompareCommand(app)};
  for (const MpiCommand& c : commands)
    if (c.app->get_name() != "selftest" && c.app->get_name() != "calibrate")
      c.app->add_option("--out", outPath, "write the results to FILE (rank 0) instead of standard output");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    app.exit(e, out, err);
    err << suggestionsFor(app, e.what(), "collsim-mpi");
    return 2;
  }
  commandLine = commandLineOf(argc, argv, "collsim-mpi");
  MpiRunner runner(MPI_COMM_WORLD);
  try {
    // --out: checked on rank 0 before any work, written by it at the end
    // (also when some results were wrong: the file says which).
    std::optional<OutputFile> file;
    std::string refused;
    if (!outPath.empty() && runner.rank() == 0) try {
        file = OutputFile::check("--out", outPath);
      } catch (const collsim::UsageError& e) {
        refused = e.what();
      }
    int ok = refused.empty() ? 1 : 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) throw MpiUsageError(refused.empty() ? "--out: refused on rank 0" : refused);
    std::ostringstream buffered;
    for (const MpiCommand& c : commands) {
      if (!c.app->parsed()) continue;
      int status = c.run(runner, file ? buffered : out);
      if (file && status <= 1) writeOutputFiles({{*file, buffered.str()}});
      return status;
    }
    return 2;
  } catch (const collsim::InputError& e) { // a usage error, bad YAML, a study it does not run: exit 2
    err << "collsim-mpi: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const MpiUsageError& e) {
    err << "collsim-mpi: error: " << printable(e.what()) << "\n";
    return 2;
  } catch (const PeerTimeout& e) {
    std::cerr << "collsim-mpi: rank " << runner.rank() << ": " << e.what() << "; every rank stops (exit "
              << kMpiExitPeerFailed << ")\n";
    return kMpiExitPeerFailed;
  } catch (const TransportError& e) { // the transport itself failed: every rank stops too
    std::cerr << "collsim-mpi: rank " << runner.rank() << ": " << e.what() << "\n";
    return kMpiExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "collsim-mpi: rank " << runner.rank() << ": internal error: " << e.what() << "\n";
    return kMpiExitInternal;
  }
}

namespace {
class NullBuffer : public std::streambuf {
protected:
  int overflow(int c) override { return c; }
};
} // namespace

std::ostream& nullStream() {
  static NullBuffer buffer;
  static std::ostream stream(&buffer);
  return stream;
}

} // namespace collsim
