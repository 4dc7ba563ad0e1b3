// Result tables for people (table, md) and programs (json, csv).
#pragma once

#include <string>
#include <vector>

#include "sim/report/output_format.h"
#include "sim/run/simulate.h"

namespace collsim {


struct Report {
  std::string command;            // "run" or "perf"
  std::string name;               // scenario name
  std::string description;
  std::string clusterName;
  std::string clusterDescription;
  Bytes segment = 0;
  Fidelity fidelity = Fidelity::Fast;
  std::uint64_t seed = 0;
  std::vector<CollectiveRun> results;
  std::vector<std::string> notes; // said under the table ("# note: ..."), and in JSON
};

std::string formatReport(const Report& report, OutputFormat format);

// One result's CSV columns and fields (fastest: at its size among its
// algorithms), shared by the scenario and study reports.
std::vector<std::string> collectiveCsvHeader();
std::vector<std::string> collectiveCsvCells(const CollectiveRun& run, bool fastest);

} // namespace collsim
