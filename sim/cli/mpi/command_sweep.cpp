// collsim-mpi sweep SCENARIO.yaml: the points of a scenario (algorithm x
// size) spread over the MPI ranks, simulated, and gathered into the table
// `collsim run` prints, byte for byte. A scenario with a plan: block has
// its layouts spread instead, gathered into the ranking `collsim plan`
// prints.
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "sim/cli/execute.h"
#include "sim/cli/network_report.h"
#include "sim/cli/plan_run.h"
#include "sim/cli/study_journal.h"
#include "sim/cli/mpi/mpi_command.h"
#include "sim/scenario/scenario.h"

namespace collsim {
namespace {

struct SweepOptions {
  std::string file, format = "table";
  std::vector<std::string> sets;
};

// What a rank sends back per point: enough to rebuild the report's row.
constexpr int kFields = 6; // index, finish, events, messages, bytes sent, bytes received

// Every rank's text, on rank 0, rank by rank (empty on the others).
std::vector<std::string> gatherTexts(const std::string& mine, MpiRunner& runner) {
  int length = int(mine.size());
  std::vector<int> lengths(std::size_t(runner.size())), offsets(std::size_t(runner.size()));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < runner.size(); ++r) offsets[r] = offsets[r - 1] + lengths[r - 1];
  std::string all(runner.rank() == 0 ? std::size_t(offsets.back() + lengths.back()) : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (runner.rank() == 0)
    for (int r = 0; r < runner.size(); ++r) out.push_back(all.substr(std::size_t(offsets[r]), std::size_t(lengths[r])));
  return out;
}

// Every rank's network figures, on rank 0, in the order of the gathered
// points (rank by rank, each rank's points in order).
std::vector<NetworkMetrics> gatherNetworks(const std::string& mine, MpiRunner& runner) {
  std::vector<NetworkMetrics> out;
  for (const std::string& text : gatherTexts(mine, runner))
    for (const auto& j : nlohmann::json::parse(text)) out.push_back(networkFromJson(j));
  return out;
}

// A plan's layouts, job i on rank i mod size; each result travels as a
// journal record (study_journal.h: exact, picoseconds).
int planSweep(const std::vector<Scenario>& study, OutputFormat format, MpiRunner& runner, std::ostream& out) {
  PlanWork work = planWork(study);
  nlohmann::json mine = nlohmann::json::array();
  for (std::size_t i = std::size_t(runner.rank()); i < work.jobs.size(); i += std::size_t(runner.size())) {
    PlanJob& job = work.jobs[i];
    simulatePlanJob(job, job.scenario->simulation.seed);
    TrainingPoint p;
    p.step = job.layout.step;
    p.error = job.layout.error;
    mine.push_back({i, trainingPointRecord(p)});
  }
  std::vector<std::string> gathered = gatherTexts(mine.dump(), runner);
  if (runner.rank() != 0) return 0;
  for (const std::string& text : gathered)
    for (const auto& entry : nlohmann::json::parse(text)) {
      PlannedLayout& layout = work.jobs[entry[0].get<std::size_t>()].layout;
      TrainingPoint p = trainingPointFromRecord(entry[1].get<std::string>());
      layout.step = p.step;
      layout.error = p.error;
    }
  rankPlans(work);
  out << formatPlanReport(work.report, format);
  return 0;
}

int sweep(const SweepOptions& o, MpiRunner& runner, std::ostream& out) {
  OutputFormat format;
  if (!parseOutputFormat(o.format, format)) throw MpiUsageError("--format: table, json, csv or md");
  std::vector<Scenario> study = loadStudyFile(o.file, o.sets);
  if (study.front().plan) return planSweep(study, format, runner, out);
  Scenario s = loadScenarioFile(o.file, o.sets);
  std::vector<ScenarioPoint> points = scenarioPoints(s);

  std::vector<std::uint64_t> mine;
  nlohmann::ordered_json myNetworks = nlohmann::ordered_json::array(); // per point of mine, in order
  for (std::size_t i = std::size_t(runner.rank()); i < points.size(); i += std::size_t(runner.size())) {
    CollectiveRun r = runPoint(s, points[i], nullptr, s.simulation.seed);
    const ExecutionResult& x = r.execution;
    mine.insert(mine.end(), {i, std::uint64_t(x.finish), x.events, x.messages, x.bytesSent, x.bytesReceived});
    myNetworks.push_back(networkJson(x.network));
  }
  std::vector<NetworkMetrics> networks = gatherNetworks(myNetworks.dump(), runner);
  int count = int(mine.size());
  std::vector<int> counts(std::size_t(runner.size())), offsets(std::size_t(runner.size()));
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  for (int r = 1; r < runner.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  std::vector<std::uint64_t> all(runner.rank() == 0 ? points.size() * kFields : 0);
  MPI_Gatherv(mine.data(), count, MPI_UINT64_T, all.data(), counts.data(), offsets.data(), MPI_UINT64_T, 0,
              MPI_COMM_WORLD);
  if (runner.rank() != 0) return 0;

  Report report = emptyReport(s, "run", s.simulation.seed);
  report.results.resize(points.size());
  std::uint32_t elem = dataTypeInfo(s.dtype).bytes;
  for (std::size_t k = 0; k < all.size(); k += kFields) {
    const ScenarioPoint& p = points[all[k]];
    CollectiveRun& r = report.results[all[k]];
    r.op = s.op;
    r.algorithm = p.algorithm;
    r.ranks = s.cluster.ranks();
    r.dtype = s.dtype;
    r.count = p.size / elem;
    r.bytes = r.count * elem;
    r.execution.finish = Time(all[k + 1]);
    r.execution.events = all[k + 2];
    r.execution.messages = all[k + 3];
    r.execution.bytesSent = all[k + 4];
    r.execution.bytesReceived = all[k + 5];
    r.execution.network = networks[k / kFields];
  }
  out << formatReport(report, format);
  return 0;
}

} // namespace

MpiCommand addMpiSweepCommand(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand("sweep", "simulate a scenario's points (or a plan's layouts) spread over the MPI ranks");
  cmd->add_option("scenario", o->file, "scenario YAML file")->required();
  cmd->add_option("--format", o->format, "table, json, csv or md")->capture_default_str();
  cmd->add_option("--set", o->sets, "override a scenario key (repeatable)");
  return {cmd, [o](MpiRunner& runner, std::ostream& out) { return sweep(*o, runner, out); }};
}

} // namespace collsim
