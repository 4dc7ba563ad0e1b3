// Test helpers: paths in the source tree, shipped clusters, and the
// collsim command line called in-process.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/cli.h"
#include "sim/scenario/cluster_config.h"
#include "topologies/server_shapes.h"

namespace collsim::testing {

inline std::string source(const std::string& relative) { return std::string(COLLSIM_SOURCE_DIR) + "/" + relative; }

// One server of p devices in an HCCS ring, 12 GB/s and 1 us per link, no
// overheads (the closed forms' cluster).
inline Cluster hccsRing(int p) {
  ServerParams s;
  s.devices = p;
  s.shape = HccsShape::Ring;
  s.hccs = {12'000'000'000ULL, 1'000'000};
  return buildServer(s);
}

// configs/clusters/atlas-2x8.yaml with `servers` servers.
inline Cluster atlasCluster(int servers) {
  return loadClusterFile(source("configs/clusters/atlas-2x8.yaml"), {"servers=" + std::to_string(servers)});
}

struct CliResult {
  int status;
  std::string out, err;
};

// Runs `collsim ARGS...`; captures standard output and error.
inline CliResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), "collsim");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int status = runCli(int(argv.size()), argv.data(), {out, err, false});
  return {status, out.str(), err.str()};
}

} // namespace collsim::testing
