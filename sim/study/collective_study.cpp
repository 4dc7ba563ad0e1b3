#include "sim/study/collective_study.h"

#include "sim/study/progress.h"
#include "sim/core/parallel.h"
#include "sim/core/printable.h"

namespace collsim {

std::size_t CollectiveStudyReport::rowCount() const {
  std::size_t n = 0;
  for (const auto& p : points) n += p.loadError.empty() ? p.rows.size() : 1;
  return n;
}

std::size_t CollectiveStudyReport::failedRows() const {
  std::size_t n = 0;
  for (const auto& p : points) {
    if (!p.loadError.empty()) ++n;
    for (const auto& r : p.rows) n += r.error.empty() ? 0 : 1;
  }
  return n;
}

std::string CollectiveStudyReport::firstError() const {
  for (const auto& p : points) {
    if (!p.loadError.empty()) return p.loadError;
    for (const auto& r : p.rows)
      if (!r.error.empty()) return r.error;
  }
  return "";
}

std::string studyPointLabel(const std::string& variant,
                            const std::vector<std::pair<std::string, std::string>>& sweepValues) {
  std::string label = variant;
  for (const auto& [key, value] : sweepValues) label += (label.empty() ? "" : ", ") + key + "=" + value;
  return label;
}

CollectiveStudyReport plannedCollectiveStudy(const std::vector<Scenario>& study, const std::string& command,
                                             std::uint64_t seed, std::vector<CollectiveStudyJob>& jobs) {
  CollectiveStudyReport report;
  for (const Scenario& s : study) {
    CollectiveStudyPoint p{s.variant, s.sweepValues, s.cluster.name, s.cluster.description, s.cluster.ranks(),
                           s.loadError, {}};
    if (s.loadError.empty()) {
      if (report.header.name.empty()) report.header = emptyReport(s, command, seed);
      for (const ScenarioPoint& what : scenarioPoints(s)) {
        jobs.push_back({report.points.size(), p.rows.size(), what});
        p.rows.push_back({what.algorithm, what.size, "", {}});
      }
    }
    report.points.push_back(std::move(p));
  }
  return report;
}

void runCollectiveStudyJob(const std::vector<Scenario>& study, const CollectiveStudyJob& job,
                           CollectiveStudyReport& report, TraceRecorder* trace, std::uint64_t seed) {
  const Scenario& s = study[job.point];
  StudyRow& row = report.points[job.point].rows[job.row];
  try {
    row.run = runPoint(s, job.what, trace, seed, studyPointLabel(s.variant, s.sweepValues));
  } catch (const InputError& e) {
    row.error = printable(e.what(), false);
  }
}

CollectiveStudyReport executeCollectiveStudy(const std::vector<Scenario>& study, const std::string& command,
                                             const ExecuteOptions& options) {
  std::vector<CollectiveStudyJob> jobs;
  CollectiveStudyReport report = plannedCollectiveStudy(study, command, options.seed, jobs);
  ProgressLine progress(options.progress, jobs.size(), "runs simulated");
  progress.show(0);
  auto run = [&](std::size_t k) { runCollectiveStudyJob(study, jobs[k], report, options.trace, options.seed); };
  // A trace recorder takes one run at a time.
  runParallel(jobs.size(), options.trace ? 1 : hardwareThreads(), run, [&](std::size_t done) { progress.show(done); });
  progress.clear();
  return report;
}

} // namespace collsim
