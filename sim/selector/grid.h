// A selector grid (scenarios/selector-grid.yaml): collectives x sizes x
// cluster shapes, the cases a rule set is scored on.
//
//   name: selector-grid
//   ops: [allreduce]
//   sizes: [64KiB, 1MiB, 64MiB]
//   clusters:
//     - base: ../configs/clusters/atlas-2x8.yaml   # a cluster file (relative to the grid) ...
//       servers: [1, 2, 4, 8]                      # ... with these keys swept
//       devices: [8]
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/config/cluster_config.h"

namespace collsim {

struct GridPoint {
  Collective op;
  Bytes bytes;
  int cluster; // index into Grid::clusters
  std::string key() const;
};

struct Grid {
  std::string name;
  std::vector<ClusterSetup> clusters;
  std::vector<std::string> labels; // per cluster: "atlas-2x8 servers=4 devices=8"
  std::vector<GridPoint> points;
  std::string fingerprint; // of the grid file and the cluster files it names
};

Grid loadGridFile(const std::string& file);
// The same from text; cluster files are relative to `file`'s folder.
Grid loadGridText(const std::string& text, const std::string& file);

} // namespace collsim
