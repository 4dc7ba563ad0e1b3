// collsim-mpi sweep SCENARIO.yaml: the runs of a scenario or a collective
// study (point x algorithm x size) spread over the MPI ranks, simulated,
// and gathered into the report `collsim run` prints, byte for byte. A scenario with a plan: block has
// its layouts spread instead, gathered into the ranking `collsim plan`
// prints.
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "sim/study/collective_study.h"
#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/study/execute.h"
#include "sim/report/provenance.h"
#include "sim/report/network_report.h"
#include "sim/study/plan_run.h"
#include "sim/study/study_journal.h"
#include "sim/cli/mpi/mpi_command.h"
#include "sim/scenario/scenario.h"

namespace collsim {
namespace {

struct SweepOptions {
  std::string file;
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets;
  const std::string* commandLine = nullptr; // runMpiCli's, set once parsed
};

// The report with its provenance, as collsim writes it (provenance.h).
std::string stamped(const std::string& report, OutputFormat format, const SweepOptions& o,
                    const std::vector<Scenario>& study) {
  const auto& resolved = study.front().resolvedYaml;
  return withProvenance(report, format, *o.commandLine, resolved ? *resolved : "");
}

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

// A plan's layouts, job i on rank i mod size; each result travels as a
// journal record (study_journal.h: exact, picoseconds).
int planSweep(const std::vector<Scenario>& study, const SweepOptions& o, OutputFormat format, MpiRunner& runner,
              std::ostream& out) {
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
  out << stamped(formatPlanReport(work.report, format), format, o, study);
  return 0;
}

// What a rank sends back per run: its row's error, or the figures the
// reports print (the rest of the row comes from the study on rank 0).
nlohmann::json runRecord(const StudyRow& row) {
  if (!row.error.empty()) return {{"error", row.error}};
  const ExecutionResult& x = row.run.execution;
  return {{"finish", x.finish},        {"events", x.events},
          {"messages", x.messages},    {"bytes_sent", x.bytesSent},
          {"bytes_received", x.bytesReceived}, {"network", networkJson(x.network)},
          {"protocol", protocolText(row.run.protocol)}, {"channels", row.run.channels},
          {"checked", row.run.symbolicallyChecked}, {"simulated_ranks", row.run.simulatedRanks},
          {"symmetry", row.run.symmetry}};
}

void applyRunRecord(const nlohmann::json& j, const Scenario& s, StudyRow& row) {
  if (j.contains("error")) {
    row.error = j["error"].get<std::string>();
    return;
  }
  CollectiveRun& r = row.run;
  std::uint32_t elem = dataTypeInfo(s.dtype).bytes;
  r.op = s.op;
  r.algorithm = row.algorithm;
  r.ranks = s.cluster.ranks();
  r.dtype = s.dtype;
  r.count = row.size / elem;
  r.bytes = r.count * elem;
  r.execution.finish = j["finish"].get<Time>();
  r.execution.events = j["events"].get<std::uint64_t>();
  r.execution.messages = j["messages"].get<std::uint64_t>();
  r.execution.bytesSent = j["bytes_sent"].get<Bytes>();
  r.execution.bytesReceived = j["bytes_received"].get<Bytes>();
  r.execution.network = networkFromJson(j["network"]);
  r.protocol = protocolOfName(j["protocol"].get<std::string>());
  r.channels = j["channels"].get<int>();
  r.symbolicallyChecked = j["checked"].get<bool>();
  r.simulatedRanks = j["simulated_ranks"].get<int>();
  r.symmetry = j["symmetry"].get<std::string>();
}

int sweep(const SweepOptions& o, MpiRunner& runner, std::ostream& out) {
  const OutputFormat format = o.format;
  std::vector<Scenario> study = loadStudyFile(o.file, o.sets);
  if (study.front().plan) return planSweep(study, o, format, runner, out);
  for (const Scenario& s : study)
    if (s.loadError.empty() && s.training)
      throw InputError(s.name + ": collsim-mpi sweep spreads collective scenarios and plans; run training studies "
                                "with collsim run (all cores)");
  std::vector<CollectiveStudyJob> jobs;
  std::uint64_t seed = study.front().simulation.seed;
  CollectiveStudyReport report = plannedCollectiveStudy(study, "run", seed, jobs);

  nlohmann::json mine = nlohmann::json::array();
  for (std::size_t i = std::size_t(runner.rank()); i < jobs.size(); i += std::size_t(runner.size())) {
    runCollectiveStudyJob(study, jobs[i], report, nullptr, seed);
    mine.push_back({i, runRecord(report.points[jobs[i].point].rows[jobs[i].row])});
  }
  std::vector<std::string> gathered = gatherTexts(mine.dump(), runner);
  if (runner.rank() != 0) return 0;
  for (const std::string& text : gathered)
    for (const auto& entry : nlohmann::json::parse(text)) {
      const CollectiveStudyJob& job = jobs[entry[0].get<std::size_t>()];
      applyRunRecord(entry[1], study[job.point], report.points[job.point].rows[job.row]);
    }
  // One scenario prints as collsim run prints it; a study as its study report.
  if (study.size() > 1) {
    out << stamped(formatCollectiveStudy(report, format), format, o, study);
    return report.failedRows() > 0 ? kExitSomePointsFailed : 0;
  }
  Report single = report.header;
  for (const StudyRow& row : report.points.front().rows) {
    if (!row.error.empty()) throw InputError(row.error);
    single.results.push_back(row.run);
  }
  out << stamped(formatReport(single, format), format, o, study);
  return 0;
}

} // namespace

MpiCommand addMpiSweepCommand(CLI::App& app, const std::string& commandLine) {
  auto o = std::make_shared<SweepOptions>();
  o->commandLine = &commandLine;
  auto* cmd = app.add_subcommand("sweep", "simulate a scenario's points (or a plan's layouts) spread over the MPI ranks");
  cmd->add_option("scenario", o->file, "scenario YAML file")->required();
  addFormatOption(cmd, o->format, kRowFormats);
  cmd->add_option("--set", o->sets, "override a scenario key (repeatable)");
  return {cmd, [o](MpiRunner& runner, std::ostream& out) { return sweep(*o, runner, out); }};
}

} // namespace collsim
