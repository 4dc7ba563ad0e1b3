// collsim-mpi calibrate --out cluster.yaml: measures the machine's links and
// writes a cluster YAML that collsim accepts.
//
// Ping-pong between rank 0 and rank 1 (same host) and between rank 0 and
// the first rank of the next host: the one-way latency from 8-byte
// messages, the bandwidth from 16 MiB ones. Ranks on one host become the
// devices of a server joined by a full mesh (shared memory lets any two talk
// directly); several hosts become servers with a NIC per rank on one switch,
// each of the two RoCE hops taking half the measured latency. The device's
// reduce bandwidth is timed on rank 0. One pair is measured at a time, so
// the figures are those of an otherwise idle machine.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <vector>

#include "algorithms/transports/reduction.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/cli/mpi/mpi_command.h"

namespace collsim {
namespace {

struct Link {
  double latency = 0;   // seconds, one way
  double bandwidth = 0; // bytes per second
};

// One-way time of a message of `bytes` between ranks a and b, averaged.
double pingPong(int me, int a, int b, std::size_t bytes, int reps) {
  std::vector<char> buffer(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < reps && (me == a || me == b); ++i) {
    if (me == a) {
      MPI_Send(buffer.data(), int(bytes), MPI_BYTE, b, 7, MPI_COMM_WORLD);
      MPI_Recv(buffer.data(), int(bytes), MPI_BYTE, b, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buffer.data(), int(bytes), MPI_BYTE, a, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer.data(), int(bytes), MPI_BYTE, a, 7, MPI_COMM_WORLD);
    }
  }
  double oneWay = (MPI_Wtime() - start) / reps / 2;
  MPI_Bcast(&oneWay, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
  return oneWay;
}

Link measure(int me, int a, int b) {
  const std::size_t big = 16 << 20;
  Link l;
  pingPong(me, a, b, 8, 20); // warm up the path
  l.latency = pingPong(me, a, b, 8, 1000);
  double t = pingPong(me, a, b, big, 10);
  l.bandwidth = double(big) / std::max(t - l.latency, 1e-9);
  return l;
}

double reduceBandwidth() {
  const std::size_t count = 4 << 20; // 16 MiB of float32
  std::vector<std::byte> a(count * 4, std::byte{1}), b(count * 4, std::byte{2});
  reduceInto(a.data(), b.data(), count, DataType::Float32, ReduceOp::Sum); // warm up
  double start = MPI_Wtime();
  const int reps = 10;
  for (int i = 0; i < reps; ++i) reduceInto(a.data(), b.data(), count, DataType::Float32, ReduceOp::Sum);
  return double(count * 4) * reps / (MPI_Wtime() - start);
}

std::string bandwidth(double bytesPerSecond) {
  char s[64];
  std::snprintf(s, sizeof s, "%.3fGB/s", bytesPerSecond / 1e9);
  return s;
}
std::string latency(double seconds) {
  char s[64];
  std::snprintf(s, sizeof s, "%.0fns", seconds * 1e9);
  return s;
}

struct CalibrateFiles {
  std::string out, writeCluster; // the report, the calibrated cluster YAML
};

int calibrate(CalibrateFiles files, MpiRunner& runner, std::ostream& out, std::ostream& err) {
  const int p = runner.size(), me = runner.rank();
  if (p < 2) throw MpiUsageError("calibrate needs at least 2 ranks");
  if (!files.out.empty() && files.out == files.writeCluster)
    throw MpiUsageError("--out and --write-cluster name the same file: the report and the YAML need two");
  const int perHost = runner.hostLayout(); // 0: one host
  const int devices = perHost == 0 ? p : perHost, servers = p / devices;
  if (devices < 2 && servers < 2) throw MpiUsageError("nothing to measure");

  Link intra = devices >= 2 ? measure(me, 0, 1) : Link{};
  Link inter = servers >= 2 ? measure(me, 0, devices) : Link{};
  double reduce = reduceBandwidth();
  MPI_Bcast(&reduce, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (me != 0) return 0;
  keepOldCalibrateOut(files.out, files.writeCluster, "--write-cluster", err);

  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::string yaml = std::string("# Measured by collsim-mpi calibrate on ") + date + ": " + std::to_string(p) +
                     " MPI ranks on " + std::to_string(servers) + " host(s).\n"
                     "# Ping-pong one pair at a time: an idle machine's figures.\n"
                     "name: calibrated\n"
                     "description: measured by collsim-mpi calibrate\n"
                     "servers: " + std::to_string(servers) + "\n"
                     "devices: " + std::to_string(devices) + "\n";
  if (devices >= 2)
    yaml += "hccs: {shape: mesh, bandwidth: " + bandwidth(intra.bandwidth) + ", latency: " + latency(intra.latency) + "}\n";
  else
    yaml += "hccs: {shape: ring}\n";
  yaml += "device: {step_overhead: 0us, reduce_bandwidth: " + bandwidth(reduce) + "}\n";
  if (servers >= 2)
    yaml += "nic: {per: device}\nroce: {bandwidth: " + bandwidth(inter.bandwidth) + ", latency: " +
            latency(inter.latency / 2) + "}\nfabric: {type: switch}\n";
  // The report: the YAML itself unless --write-cluster takes it, and the figures measured.
  std::string report = files.writeCluster.empty() ? yaml : "";
  if (!files.writeCluster.empty()) writeOutputFile("--write-cluster", files.writeCluster, yaml);
  report += "# intra-host: " + latency(intra.latency) + " one way, " + bandwidth(intra.bandwidth);
  if (servers >= 2) report += "; inter-host: " + latency(inter.latency) + ", " + bandwidth(inter.bandwidth);
  report += "; reduce " + bandwidth(reduce) + "\n";
  if (files.out.empty()) out << report;
  else writeOutputFile("--out", files.out, report);
  return 0;
}

} // namespace

MpiCommand addMpiCalibrateCommand(CLI::App& app) {
  auto files = std::make_shared<CalibrateFiles>();
  auto* cmd = app.add_subcommand("calibrate", "measure link latency and bandwidth, write a cluster YAML");
  cmd->add_option("--write-cluster", files->writeCluster, "write the cluster YAML here (default: into the report)");
  cmd->add_option("--out", files->out, "write the report here (default: standard output)");
  return {cmd, [files](MpiRunner& runner, std::ostream& out) { return calibrate(*files, runner, out, std::cerr); }};
}

} // namespace collsim
