#include "sim/cli/command.h"
#include "sim/cli/common_options.h"

#include <algorithm>
#include <cmath>

#include <CLI/CLI.hpp>

#include "sim/study/collective_study.h"
#include "sim/study/execute.h"
#include "sim/study/output_file.h"
#include "sim/report/provenance.h"
#include "sim/study/study_estimate.h"
#include "sim/study/run_study.h"
#include "sim/core/parallel.h"
#include "sim/config/cluster_config.h"
#include "sim/config/config_node.h"
#include "sim/hccl/apply_settings.h"
#include "sim/nccl/nccl_env.h"
#include "sim/validation/library_algorithms.h"
#include "sim/trace/trace_recorder.h"

namespace collsim {

CLI::Validator digitsOnly() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        bool ok = !v.empty() && v.size() <= 19 && std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isdigit(c); });
        return ok ? "" : "'" + v + "' is not a whole number from 0 to 9999999999999999999";
      },
      "UINT");
}

CLI::Validator finiteAtLeast(double min) {
  return CLI::Validator(
      [min](std::string& v) -> std::string {
        char* end = nullptr;
        double d = std::strtod(v.c_str(), &end);
        if (v.empty() || *end != '\0' || !std::isfinite(d) || d < min)
          return "'" + v + "' is not a finite number of at least " + CLI::detail::to_string(min);
        return "";
      },
      "NUMBER");
}

void addOutputOptions(CLI::App* cmd, OutputOptions& o, const char* setHelp, bool traced) {
  addFormatOption(cmd, o.format, kRowFormats);
  addOutOption(cmd, o.out);
  if (traced) {
    cmd->add_option("--trace", o.trace, "write a Chrome trace-event JSON file (Perfetto)");
    cmd->add_option("--trace-ranks", o.traceRanks,
                    "record only these ranks in the trace, and the links, queues and QPs at them: 0-7,12");
  }
  cmd->add_option("--seed", o.seed, "random seed of the jitter draws (default: the scenario's simulation.seed, or 1)")
      ->check(digitsOnly());
  cmd->add_option("--set", o.sets, setHelp);
  addWorkLimitOptions(cmd, o.limits);
}

void addWorkLimitOptions(CLI::App* cmd, WorkLimitOptions& o) {
  cmd->add_option("--max-events", o.maxEvents, "refuse work estimated above this many events")
      ->capture_default_str()
      ->check(finiteAtLeast(1));
  cmd->add_option("--max-memory", o.maxMemory, "refuse work estimated to need more memory")->capture_default_str();
  cmd->add_flag("--estimate", o.estimateOnly,
                "print the estimated events, memory and time, and simulate nothing (calibrate times one short comparison)");
}

TraceRecorder traceRecorderOf(const OutputOptions& o) {
  if (o.traceRanks.empty()) return TraceRecorder();
  if (o.trace.empty()) throw UsageError("--trace-ranks: it filters a trace; give --trace FILE too");
  try {
    return TraceRecorder(TraceRecorder::kDefaultMaxEvents, parseRankList(o.traceRanks));
  } catch (const std::invalid_argument& e) {
    throw UsageError("--trace-ranks " + o.traceRanks + ": " + e.what());
  }
}

void writeOutputFile(const std::string& option, const std::string& path, const std::string& content) {
  writeOutputFiles({{OutputFile::check(option, path), content}});
}

void addOutOption(CLI::App* cmd, std::string& out) {
  cmd->add_option("--out", out, "write the results to FILE instead of standard output");
}

int runWritingTo(const std::string& out, CliStreams io, const std::function<int(CliStreams)>& run) {
  if (out.empty()) return run(io);
  OutputFile file = OutputFile::check("--out", out);
  std::ostringstream buffer;
  CliStreams toBuffer{buffer, io.err, io.progress, io.commandLine};
  int status = run(toBuffer);
  if (status == 0) writeOutputFiles({{file, buffer.str()}});
  return status;
}

void emit(const std::string& text, const std::string& outPath, CliStreams io) {
  if (outPath.empty()) io.out << text;
  else writeOutputFile("--out", outPath, text);
}

// --out and --trace, checked before the simulation and written together after it.
// The results carry their provenance (provenance.h).
struct PlannedOutputs {
  std::optional<OutputFile> out, trace;
  OutputFormat format;
  std::string resolvedInput;
  explicit PlannedOutputs(const OutputOptions& o) : format(o.format), resolvedInput(o.resolvedInput) {
    if (!o.out.empty()) out = OutputFile::check("--out", o.out);
    if (!o.trace.empty()) trace = OutputFile::check("--trace", o.trace);
    if (out && trace && out->sameFileAs(*trace))
      throw UsageError("--trace " + o.trace + ": the same file as --out; the trace needs a file of its own");
    // A study's partial results go beside --out: `run X.partial --out X` would replace the scenario.
    if (out && !out->journalPath().empty()) refuseIfInput("--out " + o.out + ": its partial results", out->journalPath());
  }
  void write(const std::string& report, const TraceRecorder& recorder, CliStreams io) const {
    std::string text = withProvenance(report, format, io.commandLine, resolvedInput);
    std::vector<std::pair<OutputFile, std::string>> files;
    if (trace) files.emplace_back(*trace, recorder.json());
    if (out) files.emplace_back(*out, text);
    writeOutputFiles(files);
    if (trace && recorder.truncated()) io.err << "collsim: note: the trace was cut at its event limit\n";
    if (trace && !recorder.ranksFound())
      io.err << "collsim: note: --trace-ranks names no rank of these runs: the trace has no rank tracks\n";
    if (!out) io.out << text;
  }
};

Bytes optionBytes(const std::string& option, const std::string& value) {
  try {
    return parseBytes(value);
  } catch (const UnitError& e) {
    throw UsageError(option + ": " + e.what());
  }
}

void addEnvOptions(CLI::App* cmd, EnvOptions& o) {
  cmd->add_option("--env-file", o.file, "HCCL/NCCL settings from a shell script (export HCCL_...=..., NCCL_...=...)");
  cmd->add_flag("--env", o.process, "HCCL/NCCL settings from this process's environment (HCCL_*, NCCL_*)");
}

void applyNcclEnv(const EnvOptions& env, const std::string& clusterFile, std::vector<std::string>& sets,
                  std::vector<std::string>& algorithms, CliStreams io, const std::vector<EnvSetting>& recorded) {
  if (env.file.empty() && !env.process && recorded.empty()) return;
  const Cluster cluster = loadClusterFile(clusterFile, sets).cluster;
  const NcclTopology topology = ncclTopologyOf(cluster);
  // What the measured run recorded comes first: the user's --set, --algo
  // and settings are what-ifs on top of it.
  std::vector<EnvSetting> run = recorded;
  if (algorithms != std::vector<std::string>{kLibraryAlgorithm})
    std::erase_if(run, [](const EnvSetting& s) { return s.name == "NCCL_ALGO"; });
  NcclSettings fromRun = interpretNcclSettings(run, topology);
  NcclSettings fromUser = interpretNcclSettings(gatherHcclSettings(env.file, env.process, cluster.ranks()), topology);
  for (const NcclSettings* n : {&fromRun, &fromUser})
    for (const auto& notice : n->notices) io.err << "collsim: note: " << notice << '\n';
  if (!fromUser.algorithms.empty()) algorithms = fromUser.algorithms;
  else if (!fromRun.algorithms.empty()) algorithms = fromRun.algorithms;
  sets.insert(sets.begin(), fromRun.overrides.begin(), fromRun.overrides.end());
  sets.insert(sets.end(), fromUser.overrides.begin(), fromUser.overrides.end());
}

void applyHcclAlgorithm(const EnvOptions& env, const std::string& clusterFile, const std::vector<std::string>& sets,
                        Collective op, std::vector<std::string>& algorithms, CliStreams io,
                        const std::vector<EnvSetting>& recorded) {
  auto hcclOnly = [](std::vector<EnvSetting> v) {
    std::erase_if(v, [](const EnvSetting& s) { return s.name.rfind("HCCL_", 0) != 0; });
    return v;
  };
  std::vector<EnvSetting> run = hcclOnly(recorded);
  if (env.file.empty() && !env.process && run.empty()) return;
  const Cluster cluster = loadClusterFile(clusterFile, sets).cluster;
  std::vector<EnvSetting> user = hcclOnly(gatherHcclSettings(env.file, env.process, cluster.ranks()));
  if (algorithms != std::vector<std::string>{kLibraryAlgorithm})
    std::erase_if(run, [](const EnvSetting& s) { return s.name == "HCCL_ALGO"; });
  // Each side's HCCL_ALGO alone: the others shape loops, buffers and
  // training studies, which a comparison of one collective does not take.
  std::string forced;
  for (const std::vector<EnvSetting>* side : {&run, &user}) {
    std::vector<EnvSetting> algo;
    for (const EnvSetting& s : *side) {
      if (s.name == "HCCL_ALGO") algo.push_back(s);
      else io.err << "collsim: note: " << s.origin << ": " << s.name << ": not applied by compare and calibrate\n";
    }
    HcclSettings h = interpretHcclSettings(algo, cluster);
    for (const auto& notice : h.notices) io.err << "collsim: note: " << notice.text() << '\n';
    if (auto it = h.algorithm.find(op); it != h.algorithm.end()) forced = it->second;
  }
  if (!forced.empty()) algorithms = {forced};
}

void noteLibraryRule(const std::string& algorithm, Collective op, const ClusterSetup& setup, CliStreams io,
                     int channels) {
  if (setup.library.kind != LibraryKind::Nccl) return;
  if (algorithm == kLibraryAlgorithm && op == Collective::AllReduce)
    io.err << "collsim: note: " << ncclAlgorithmsNote(ncclTopologyOf(setup.cluster)) << '\n';
  io.err << "collsim: note: " << NcclPicker(op, setup, channels > 1 ? channels : 0).rule() << '\n';
}

void applyRecordedVersion(const MeasuredCurve& curve, std::vector<std::string>& sets, CliStreams io) {
  if (curve.ncclMinor == 0) return;
  std::string version = "2." + std::to_string(curve.ncclMinor);
  io.err << "collsim: note: " << curve.ncclVersionOrigin << ": NCCL " << version
         << ": library.version=" << version << " (a --set library.version wins)\n";
  sets.insert(sets.begin(), "library.version=" + version);
}

void applyHcclEnv(const EnvOptions& o, Scenario& s, CliStreams io, bool notices) {
  std::vector<EnvSetting> settings = gatherHcclSettings(o.file, o.process, s.cluster.ranks());
  if (settings.empty()) return;
  HcclSettings h = interpretHcclSettings(settings, s.cluster);
  if (notices)
    for (const auto& n : h.notices) io.err << "collsim: note: " << n.text() << '\n';
  applyHcclSettings(h, s);
}

WorkLimits workLimitsOf(const WorkLimitOptions& o, int parallelRuns) {
  WorkLimits limits;
  limits.maxEvents = o.maxEvents;
  limits.maxMemoryBytes = double(optionBytes("--max-memory", o.maxMemory));
  limits.parallelRuns = parallelRuns;
  return limits;
}

// Refuses what passes the limits; with --estimate prints the estimate instead.
// Returns true when the caller should go on and simulate.
bool checkWork(const WorkLimitOptions& o, int parallelRuns, const std::string& what, CliStreams io,
               const EstimateWork& estimate) {
  const WorkLimits limits = workLimitsOf(o, parallelRuns);
  const WorkEstimate e = estimate(o.estimateOnly ? nullptr : &limits);
  const WorkEstimate whole = inParallel(e, parallelRuns);
  if (o.estimateOnly) {
    io.out << what << ": " << describeEstimate(whole);
    if (e.events > 0) io.out << "; simulated time at least " << e.simulatedSeconds << " s";
    io.out << "\n";
    return false;
  }
  enforceLimits(e, limits, what);
  if (io.progress && whole.seconds() > 10) io.err << "collsim: " << what << ": " << describeEstimate(whole) << "\n";
  return true;
}

// --trace holds every event it records as JSON text, and formats it again
// to write it: about 450 bytes and 12 us of this machine's time an event
// beyond the run's own (perf of a 256-rank ring of 1 GiB: 539,105 trace
// events of 910,000 estimated engine events, 240 MiB and 6.3 s more), up
// to the recorder's limit. The engine's events bound the recorded ones.
static WorkEstimate withTrace(WorkEstimate e, const OutputOptions& o) {
  if (o.trace.empty()) return e;
  const double recorded = std::min(e.events, double(TraceRecorder::kDefaultMaxEvents));
  e.wallSeconds = e.seconds() + 12e-6 * recorded;
  e.memoryBytes += 450 * recorded;
  return e;
}

int simulateStudyAndReport(const StudyReader& reader, const std::string& command, const OutputOptions& o,
                           CliStreams io) {
  const Scenario first = reader.point(0);
  if (reader.size() == 1 && !first.training) {
    if (o.resume) throw UsageError("--resume: continues training studies; a collective scenario has nothing to resume");
    return simulateAndReport(first, command, o, io);
  }
  // The limits are checked on a sample of the points (reading them all is
  // much of the run); every point is read only to run. A training study
  // small enough to be estimated whole is checked by runStudy, once, as it runs.
  const int parallelRuns = o.trace.empty() ? hardwareThreads() : 1;
  const bool trainingWhole = first.training && reader.size() <= kStudySamplePoints;
  if (!trainingWhole && !checkWork(o.limits, parallelRuns, first.name, io,
                                   [&](const WorkLimits* stop) { return withTrace(estimateStudy(reader, stop, !o.trace.empty()), o); }))
    return 0;
  const std::vector<Scenario> study = reader.all();
  OutputFormat format = o.format;
  PlannedOutputs outputs(o);
  TraceRecorder recorder = traceRecorderOf(o);
  StudyRunOptions options;
  options.execute = {o.trace.empty() ? nullptr : &recorder, io.progress ? &io.err : nullptr,
                     o.seed.value_or(study.front().simulation.seed)};
  options.journalPath = outputs.out ? outputs.out->journalPath() : ""; // completed points go to FILE.partial
  options.fingerprint = o.fingerprint;
  options.resume = o.resume;
  options.notices = &io.err;
  options.approve = [&](const std::function<WorkEstimate(const WorkLimits*)>& estimate) {
    return checkWork(o.limits, parallelRuns, study.front().name, io,
                     [&](const WorkLimits* stop) { return withTrace(estimate(stop), o); });
  };
  StudyRun run = runStudy(study, command, options);
  if (!run.collectives && !run.training) return 0; // --estimate
  outputs.write(run.collectives ? formatCollectiveStudy(*run.collectives, format) : formatTrainingReport(*run.training, format),
                recorder, io);
  run.finish();
  if (std::size_t failed = run.failed()) {
    io.err << "collsim: " << failed << " of " << run.total()
           << (run.collectives ? " runs failed (see the table)\n" : " points failed (see their rows)\n");
    return kExitSomePointsFailed;
  }
  return 0;
}

int simulateAndReport(const Scenario& scenario, const std::string& command, const OutputOptions& o, CliStreams io) {
  OutputFormat format = o.format;
  PlannedOutputs outputs(o);
  if (!checkWork(o.limits, 1, scenario.name, io,
                 [&](const WorkLimits* stop) { return withTrace(estimateScenario(scenario, stop, !o.trace.empty()), o); }))
    return 0;
  TraceRecorder recorder = traceRecorderOf(o);
  ExecuteOptions options{o.trace.empty() ? nullptr : &recorder, io.progress ? &io.err : nullptr,
                         o.seed.value_or(scenario.simulation.seed)};
  Report report = executeScenario(scenario, command, options);
  outputs.write(formatReport(report, format), recorder, io);
  return 0;
}

} // namespace collsim
