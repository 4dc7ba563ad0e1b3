// collsim profile PROFILE [--scenario RUN.yaml]: where a profiled device's
// steps went by kind of kernel (sim/validation/profile.h), beside what
// collsim predicts for the run.
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/core/text_list.h"
#include "sim/core/printable.h"
#include "sim/report/provenance.h"
#include "sim/report/text_table.h"
#include "sim/scenario/step_options.h"
#include "sim/study/output_file.h"
#include "sim/validation/profile.h"
#include "sim/workload/step_simulation.h"
#include "sim/workload/layer_compute.h"

namespace collsim {
namespace {

struct ProfileCliOptions {
  std::string profile, scenario, variant, out;
  OutputFormat format = OutputFormat::Table;
  std::vector<std::string> sets;
  int device = -1;
  WorkLimitOptions limits; // of the step --scenario simulates
};

// The one run of a study to predict: its only point, or the variant named.
const Scenario& chosenRun(const std::vector<Scenario>& study, const std::string& variant, const std::string& file) {
  std::vector<std::string> names;
  for (const Scenario& s : study) {
    if (!variant.empty() && s.variant != variant) {
      names.push_back(s.variant);
      continue;
    }
    if (!variant.empty() || study.size() == 1) {
      if (!s.loadError.empty()) throw InputError(s.loadError);
      if (!s.training) throw UsageError("--scenario: " + file + " is not a training run (a training: block)");
      return s;
    }
  }
  if (variant.empty())
    throw UsageError("--variant: " + file + " has " + std::to_string(study.size()) + " points; name one");
  throw UsageError("--variant: no variant '" + variant + "' in " + file + " (variants: " + joinNames(names) + ")");
}

double ms(double seconds) { return seconds * 1e3; }

std::string clipped(const std::string& name, std::size_t width = 70) {
  std::string p = printable(name, false);
  return p.size() <= width ? p : p.substr(0, width - 3) + "...";
}

struct Row {
  const char* name;
  double ProfileClasses::*field;
};
constexpr Row kRows[] = {{"gemm", &ProfileClasses::gemm},
                         {"attention", &ProfileClasses::attention},
                         {"memory", &ProfileClasses::memory},
                         {"communication", &ProfileClasses::communication},
                         {"exposed_communication", &ProfileClasses::exposed},
                         {"idle", &ProfileClasses::idle},
                         {"step", &ProfileClasses::step}};

nlohmann::ordered_json classesJson(const ProfileClasses& c) {
  nlohmann::ordered_json j;
  for (const Row& r : kRows) j[std::string(r.name) + "_s"] = c.*r.field;
  return j;
}

std::string stepsText(const Profile& p, const ProfileBreakdown& b) {
  if (p.steps.empty()) return "no step marks: the whole profile is one step";
  return std::to_string(b.steps) + " steps (" + printable(p.steps.front().name, false) +
         (b.steps > 1 ? " .. " + printable(p.steps.back().name, false) : "") + ")";
}

int run(const ProfileCliOptions& o, CliStreams io) {
  if (o.scenario.empty() && (!o.variant.empty() || !o.sets.empty()))
    throw UsageError(std::string(o.variant.empty() ? "--set" : "--variant") + " goes with --scenario");
  std::optional<OutputFile> out;
  if (!o.out.empty()) out = OutputFile::check("--out", o.out);
  Profile profile = readProfile(o.profile, o.device);
  ProfileBreakdown b = breakdownOf(profile);
  std::optional<ProfileClasses> predicted;
  std::optional<ClassSeconds> block; // collsim's: one block's passes over one micro-batch
  std::string predictedText;
  if (!o.scenario.empty()) {
    std::vector<Scenario> study = loadStudyFile(o.scenario, o.sets);
    const Scenario& s = chosenRun(study, o.variant, o.scenario);
    const StepOptions options = stepOptionsOf(s, s.algorithms.front(), s.simulation.seed, nullptr);
    if (!checkWork(o.limits, 1, s.name, io,
                   [&](const WorkLimits*) { return estimateTrainingStep(s.cluster, *s.training, options); }))
      return 0;
    StepResult step = simulateTrainingStep(s.cluster, *s.training, options);
    predicted = predictedClasses(step);
    const ParallelLayout l = step.layout.value_or(ParallelLayout{});
    std::vector<LayerCompute> layers =
        layerCompute(s.training->model, s.cluster.device, {l.tp, l.ep, l.sequenceParallel, l.cp});
    for (const LayerCompute& c : layers)
      if (c.block) {
        block = c.classes;
        break;
      }
    predictedText = o.scenario + (s.variant.empty() ? "" : " (" + s.variant + ")") + " on " + s.cluster.name + ": " +
                    s.training->model.name + (step.layout ? ", " + step.layout->text() + ", the device that finished last" : "");
  }
  const ProfileClasses& m = b.perStep;
  std::string text;
  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["profile"] = {{"file", o.profile}, {"format", profile.format}, {"device", profile.device},
                    {"devices", profile.devices}, {"steps", b.steps}};
    j["measured"] = classesJson(m);
    if (predicted) j["predicted"] = classesJson(*predicted), j["predicted"]["run"] = predictedText;
    if (block)
      j["predicted"]["block_s"] = {{"gemm", block->gemm}, {"attention", block->attention}, {"memory", block->memory},
                                   {"overhead", block->overhead}};
    nlohmann::ordered_json kernels = nlohmann::ordered_json::array(), layers = nlohmann::ordered_json::array();
    for (const KernelTotal& k : b.topKernels)
      kernels.push_back({{"name", printable(k.name, false)}, {"class", kernelClassName(k.kind)}, {"count", k.count},
                         {"seconds", k.seconds}});
    for (const LayerTotal& l : b.layers) {
      nlohmann::ordered_json lj = {{"name", printable(l.name, false)}, {"count", l.count}};
      lj.update(classesJson(l.classes));
      layers.push_back(lj);
    }
    j["top_kernels"] = kernels;
    j["layers"] = layers;
    text = withProvenance(j.dump(2) + "\n", OutputFormat::Json, io.commandLine, "");
  } else {
    TextTable t(predicted ? std::vector<std::string>{"class", "measured_ms", "share", "predicted_ms", "share", "error"}
                          : std::vector<std::string>{"class", "measured_ms", "share"});
    for (const Row& r : kRows) {
      const double x = m.*r.field;
      std::vector<std::string> row = {r.name, fixed(ms(x), 3), percent(x / m.step)};
      if (predicted) {
        const double y = (*predicted).*r.field;
        const bool known = r.field != &ProfileClasses::communication;
        row.push_back(known ? fixed(ms(y), 3) : "-");
        row.push_back(known ? percent(y / predicted->step) : "-");
        row.push_back(known && x > 0 ? percent(y / x - 1) : "-");
      }
      t.add(std::move(row));
    }
    TextTable kernels({"class", "kernel", "count", "ms"});
    for (const KernelTotal& k : b.topKernels)
      kernels.add({kernelClassName(k.kind), clipped(k.name), std::to_string(k.count), fixed(ms(k.seconds), 3)});
    text = withProvenance("", OutputFormat::Table, io.commandLine, "") + "# profile: " + printable(o.profile) + " (" +
           profile.format + "), device " + std::to_string(profile.device) + " of " +
           std::to_string(profile.devices.size()) + "; " + stepsText(profile, b) + ", a step " +
           fixed(ms(m.step), 3) + " ms on average\n" + (predicted ? "# predicted: " + predictedText + "\n" : "") +
           "# per step by kind of kernel (gemm, attention, memory: kernels on several streams add up);\n"
           "# communication: every collective kernel; exposed_communication: a collective runs and no compute;\n"
           "# idle: no kernel runs (launches, the host, the framework; collsim: layer_overhead and the bubble)\n" +
           t.text() + "# the longest kernels of each class, per step\n" + kernels.text();
    if (!b.layers.empty()) {
      TextTable layers({"layer", "count", "step_ms", "gemm_ms", "attention_ms", "memory_ms", "communication_ms"});
      for (const LayerTotal& l : b.layers)
        layers.add({clipped(l.name, 50), std::to_string(l.count), fixed(ms(l.classes.step), 3), fixed(ms(l.classes.gemm), 3),
                    fixed(ms(l.classes.attention), 3), fixed(ms(l.classes.memory), 3),
                    fixed(ms(l.classes.communication), 3)});
      text += "# layers: the profile's annotations (record_function), each kernel in the innermost, per step\n" +
              layers.text();
    }
    if (block)
      text += "# collsim, one block's passes (forward, backward, recomputation) over one micro-batch: gemm " +
              fixed(ms(block->gemm), 3) + " ms, attention " + fixed(ms(block->attention), 3) + " ms, memory " +
              fixed(ms(block->memory), 3) + " ms, overhead " + fixed(ms(block->overhead), 3) + " ms\n";
  }
  if (out) writeOutputFiles({{*out, text}});
  else io.out << text;
  return 0;
}

} // namespace

Command addProfileCommand(CLI::App& app) {
  auto o = std::make_shared<ProfileCliOptions>();
  auto* cmd = app.add_subcommand("profile", "where a profiled device's steps went by kind of kernel (PyTorch profiler "
                                            "trace, msprof or torch_npu output), beside collsim's prediction");
  cmd->add_option("profile", o->profile, "a PyTorch profiler (Kineto) trace JSON, an msprof or torch_npu trace JSON, "
                                         "or an op summary / kernel_details CSV")->required();
  cmd->add_option("--scenario", o->scenario, "the training run the profile measured, to predict it");
  cmd->add_option("--variant", o->variant, "which variant of the scenario's study");
  cmd->add_option("--device", o->device, "which device of the profile (default: the lowest)")->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--set", o->sets, "override a scenario key: --set cluster.device=fitted.yaml");
  addWorkLimitOptions(cmd, o->limits);
  addFormatOption(cmd, o->format, kReportFormats);
  addOutOption(cmd, o->out);
  return {cmd, [o](CliStreams io) { return run(*o, io); }};
}

} // namespace collsim
