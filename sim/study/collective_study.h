// A study of collective scenarios: a scenario file's variants x sweep
// points (sim/scenario/study.h), each with its algorithms and sizes. Every
// (point, algorithm, size) runs as its own job on the machine's cores; the
// report keeps the file's order whatever finishes first.
//
// Its outputs: a side-by-side table (one row per point and size, a time
// column per algorithm) for people; tidy long form (one row per point x
// algorithm x size, every swept key a column) in CSV, JSON and Markdown.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/study/execute.h"

namespace collsim {

struct StudyRow {
  std::string algorithm;
  Bytes size = 0;
  std::string error; // why it did not run (empty: `run` holds its result)
  CollectiveRun run{};
};

struct CollectiveStudyPoint {
  std::string variant;
  std::vector<std::pair<std::string, std::string>> sweepValues;
  std::string cluster, clusterDescription;
  int ranks = 0;
  std::string loadError; // the point's scenario did not load: no rows
  std::vector<StudyRow> rows;
};

struct CollectiveStudyReport {
  Report header; // the first loaded point's scenario: name, cluster, fidelity, seed, notes
  std::vector<CollectiveStudyPoint> points;
  std::size_t failedRows() const;
  std::size_t rowCount() const;
  std::string firstError() const;
};

CollectiveStudyReport executeCollectiveStudy(const std::vector<Scenario>& study, const std::string& command,
                                             const ExecuteOptions& options);

// The same in parts, for callers that spread the runs (collsim-mpi sweep):
// the report with every row named and none run, and one job per row.
struct CollectiveStudyJob {
  std::size_t point, row;
  ScenarioPoint what;
};
CollectiveStudyReport plannedCollectiveStudy(const std::vector<Scenario>& study, const std::string& command,
                                             std::uint64_t seed, std::vector<CollectiveStudyJob>& jobs);
// Runs the job into its row (an input error goes into the row's error).
void runCollectiveStudyJob(const std::vector<Scenario>& study, const CollectiveStudyJob& job,
                           CollectiveStudyReport& report, TraceRecorder* trace, std::uint64_t seed);
std::string formatCollectiveStudy(const CollectiveStudyReport& report, OutputFormat format);

// "cluster.servers=8, algo=ring": a point's swept keys (and variant), for
// labels and traces.
std::string studyPointLabel(const std::string& variant,
                            const std::vector<std::pair<std::string, std::string>>& sweepValues);

} // namespace collsim
