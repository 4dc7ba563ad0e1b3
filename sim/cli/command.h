// Pieces shared by the collsim subcommands. Each subcommand lives in its own
// file and registers itself with the CLI11 app.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/cli/cli.h"
#include "sim/report/report.h"
#include "sim/core/input_error.h"
#include "sim/core/units.h"
#include "sim/run/work_estimate.h"
#include "sim/selector/rules.h"
#include "sim/hccl/hccl_env.h"
#include "sim/validation/measured_curve.h"

namespace CLI {
class App;
class Validator;
} // namespace CLI

namespace collsim {

struct Scenario;
class StudyReader;
struct ClusterSetup;

// A registered subcommand: its CLI11 node and what runs it once parsed.
struct Command {
  CLI::App* app;
  std::function<int(CliStreams)> run;
};

Command addRunCommand(CLI::App& app);
Command addPerfCommand(CLI::App& app);
Command addVerifyCommand(CLI::App& app);
Command addAlgorithmsCommand(CLI::App& app);
Command addSelectCommand(CLI::App& app);
Command addSelectorCommand(CLI::App& app);
Command addHcclEnvCommand(CLI::App& app);
Command addCompareCommand(CLI::App& app);
Command addCalibrateCommand(CLI::App& app);
Command addPlanCommand(CLI::App& app);
Command addTopologyCommand(CLI::App& app);
Command addProfileCommand(CLI::App& app);
Command addNpkitCommand(CLI::App& app);
Command addScheduleCommand(CLI::App& app);
Command addKeysCommand(CLI::App& app);

// Option checks that CLI11 lacks: digits only (no sign, no wrap-around of
// -1 into an unsigned seed), and a finite number (no nan, no inf) >= min.
CLI::Validator digitsOnly();
CLI::Validator finiteAtLeast(double min);

class TraceRecorder;

// --max-events, --max-memory, --estimate: the limit every command that
// simulates is under.
struct WorkLimitOptions {
  double maxEvents = WorkLimits{}.maxEvents;
  std::string maxMemory = "8GiB";
  bool estimateOnly = false; // --estimate: print the estimate, simulate nothing
};
void addWorkLimitOptions(CLI::App* cmd, WorkLimitOptions& o);
// The limits the options give, for `parallelRuns` runs in flight at once.
WorkLimits workLimitsOf(const WorkLimitOptions& o, int parallelRuns);

// `collsim calibrate RUNS.yaml`: a device's compute fitted to measured
// training runs (command_calibrate_compute.cpp).
struct ComputeCalibrateRequest {
  std::string runs, deviceFile; // deviceFile: --write-device
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets, fit;
  WorkLimitOptions limits;
  std::vector<std::string> on, predict; // the runs to fit, and the held-out ones to predict
};
int runComputeCalibration(const ComputeCalibrateRequest& request, CliStreams io);

// --format/--out/--trace/--seed/--set, shared by run and perf.
struct OutputOptions {
  OutputFormat format = OutputFormat::Table;
  std::string out;
  std::string trace;
  std::string traceRanks; // --trace-ranks 0-7,12: only these ranks' tracks
  std::optional<std::uint64_t> seed; // else the scenario's simulation.seed
  std::vector<std::string> sets;
  WorkLimitOptions limits;
  bool resume = false;       // --resume: continue a study from --out's partial results
  std::string fingerprint;   // identifies the study for --resume (set by the command)
  std::string resolvedInput; // the scenario (or cluster) as it ran, for provenance (set by the command)
};
// --format, --out, --seed, --set, the work limits; and --trace, --trace-ranks
// for commands whose run can be traced.
void addOutputOptions(CLI::App* cmd, OutputOptions& o, const char* setHelp, bool traced = true);
// The trace recorder --trace and --trace-ranks ask for.
TraceRecorder traceRecorderOf(const OutputOptions& o);

// --env-file FILE and --env: HCCL settings for run, perf and select; NCCL
// settings for perf, compare and calibrate.
struct EnvOptions {
  std::string file;
  bool process = false;
};
void addEnvOptions(CLI::App* cmd, EnvOptions& o);
// The NCCL_* settings a measured run recorded (MeasuredCurve::env), then
// those of `env` (sim/nccl/nccl_env.h), for the cluster file under `sets`:
// the run's overrides go before `sets`, the user's after them (later ones
// win); NCCL_ALGO's algorithms replace `algorithms`, the run's only when
// they are `library` (an --algo given is the user's). One notice per
// variable on standard error.
void applyNcclEnv(const EnvOptions& env, const std::string& clusterFile, std::vector<std::string>& sets,
                  std::vector<std::string>& algorithms, CliStreams io, const std::vector<EnvSetting>& recorded = {});
// HCCL_ALGO, as the measured run recorded it (`recorded`) and as `env` gives
// it (the user's wins; an --algo given wins over the run's): the
// operation's forced algorithm replaces `algorithms`, with a note; other
// HCCL variables are named as not applied to a comparison.
void applyHcclAlgorithm(const EnvOptions& env, const std::string& clusterFile, const std::vector<std::string>& sets,
                        Collective op, std::vector<std::string>& algorithms, CliStreams io,
                        const std::vector<EnvSetting>& recorded);
// On an NCCL cluster: with --algo library, a note of the rule that picks
// the AllReduce candidates (sim/nccl/nccl_algorithms.h); always, one of the
// tuning model that picks among them (library_algorithms.h, NcclPicker).
void noteLibraryRule(const std::string& algorithm, Collective op, const ClusterSetup& setup, CliStreams io,
                     int channels = 0);
// The NCCL release a measured log names becomes library.version (ahead of
// the user's --set, which wins), with a note naming its line.
void applyRecordedVersion(const MeasuredCurve& curve, std::vector<std::string>& sets, CliStreams io);
// Applies the HCCL settings to a scenario (algorithm, loops, segment, intra-
// server RoCE; a training study's bucket, overlap and pipeline), printing
// one notice per variable on standard error if `notices`.
void applyHcclEnv(const EnvOptions& o, Scenario& s, CliStreams io, bool notices = true);

// Exit statuses beside 0, 1 (internal fault) and 2 (bad input): some points
// of a study failed (their rows say why); the others are in the report.
inline constexpr int kExitSomePointsFailed = 3;

// Simulates every point of the scenario and writes the report (and trace).
int simulateAndReport(const Scenario& scenario, const std::string& command, const OutputOptions& o, CliStreams io);
// The same for a study: a training study (any number of points), or a
// single collective scenario.
int simulateStudyAndReport(const StudyReader& study, const std::string& command, const OutputOptions& o,
                           CliStreams io);

// Refuses work past --max-events / --max-memory (`parallelRuns` at once);
// with --estimate prints the estimate instead. True: go on and simulate.
// `estimate` is given the limits, to stop adding up runs once past them
// (a refusal is immediate), or nullptr under --estimate (the whole sum).
using EstimateWork = std::function<WorkEstimate(const WorkLimits* stop)>;
bool checkWork(const WorkLimitOptions& o, int parallelRuns, const std::string& what, CliStreams io,
               const EstimateWork& estimate);

// Writes one result file safely (output_file.h); `option` names it in errors.
void writeOutputFile(const std::string& option, const std::string& path, const std::string& content);
// Writes `text` to --out or standard output.
void emit(const std::string& text, const std::string& outPath, CliStreams io);
// Adds --out FILE to a command that prints its results: `run` prints them
// to a buffer that goes to FILE when it succeeds (FILE is checked first).
// Its notes still go to standard error.
void addOutOption(CLI::App* cmd, std::string& out);
int runWritingTo(const std::string& out, CliStreams io, const std::function<int(CliStreams)>& run);
Bytes optionBytes(const std::string& option, const std::string& value);
// The built-in configs/selector/hccl-910b.yaml (command_select.cpp).
SelectorRules defaultSelectorRules();

} // namespace collsim
