// Measured training runs: their figures as steps (measurement.h), and the
// device's compute fitted to them (compute_calibration.h). The conversions
// are worked out by hand from the FLOP counts; the fit is checked against
// a device whose figures are known: runs simulated with them are the
// "measurements", and calibrating the preset must find those figures again.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

#include "sim/config/config_node.h"
#include "sim/config/model_config.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/step_options.h"
#include "sim/validation/compute_calibration.h"
#include "sim/validation/profile.h"
#include "sim/workload/measurement.h"
#include "sim/workload/step_simulation.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

// Two blocks of h = 1024, 8 heads, a 4096 FFN (not gated), 1000 words,
// 2048 tokens, full recomputation.
ModelSpec roundModel() {
  std::string yaml = "{name: round, transformer: {layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1000, "
                     "sequence: 2048, gated_ffn: false, recomputation: full}, precision: {weights: 2}, micro_batch: 4}";
  return loadModel(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("m.yaml")));
}

// MPT-125M on a DGX A100 under FSDP: two runs whose steps spend their time
// differently (many tokens of GEMMs; one short sequence, where each layer's
// fixed cost weighs more).
std::string smallRuns(const std::string& measuredA, const std::string& measuredB) {
  return "name: small\ncluster: " + source("configs/clusters/dgx-a100-8.yaml") +
         "\nalgo: ring\nsimulation: {segment: 16MiB}\ntraining:\n  model: " + source("configs/models/mpt-125m.yaml") +
         "\n  bucket: 256MiB\n  parallel: {zero: 3, micro_batches: 1}\nvariants:\n"
         "  - {name: a, set: {training.model.micro_batch: 8}, measured: " + measuredA + "}\n"
         "  - {name: b, set: {training.model.micro_batch: 1, training.model.transformer.sequence: 512}, measured: " +
         measuredB + "}\n";
}

// The two runs measured on a device with `truth` set: each one's step as
// simulated there, as its measured step_time (the study's YAML).
std::string runsMeasuredOn(const std::vector<std::string>& truth) {
  std::vector<Scenario> on = loadStudyText(smallRuns("{step_time: 1s}", "{step_time: 1s}"), "truth.yaml", ".", truth);
  std::vector<std::string> measured;
  for (const Scenario& s : on) {
    double step = toSeconds(simulateTrainingStep(s.cluster, *s.training, stepOptionsOf(s, "ring", 1, nullptr)).iteration);
    measured.push_back("{step_time: " + std::to_string(step * 1e3) + "ms}");
  }
  return smallRuns(measured[0], measured[1]);
}

} // namespace

TEST_CASE("a measured figure is the step of the run it measures, under the FLOP count it names") {
  // Per block: attention 4 h^2 = 4,194,304 parameters, FFN 2 h f =
  // 8,388,608, norms 2 h = 2,048: 12,584,960. Forward FLOPs of a sample:
  // blocks 2 x (2 x 12,584,960 x 2048 + 4 x 2048^2 x 1024) = 2 x
  // 68,728,848,384, head 2 x 1000 x 1024 x 2048 = 4,194,304,000: together
  // 141,651,000,768; the model count is 3 x that, 424,953,002,304.
  ModelSpec m = roundModel();
  CHECK(flopsPerSample(m, FlopCount::Model) == doctest::Approx(424953002304.0));
  // Hardware adds the recomputed forward of both blocks (full): 137,457,696,768.
  CHECK(flopsPerSample(m, FlopCount::Hardware) == doctest::Approx(562410699072.0));
  // Causal halves the scores and mix: 3 x 2 x 17,179,869,184 / 2 fewer.
  CHECK(flopsPerSample(m, FlopCount::Causal) == doctest::Approx(373413394752.0));
  // 6n: 6 x the parameters (embedding 1,024,000, blocks 25,169,920, head
  // 1,025,024 untied: 27,218,944) x 2048 tokens.
  CHECK(flopsPerSample(m, FlopCount::SixN) == doctest::Approx(334465384448.0));

  // A step of 8 devices, micro-batch 4, 2 micro-batches: 64 samples.
  StepResult step;
  step.ranks = 8, step.replicas = 8, step.microBatch = 4, step.accumulation = 2;
  step.devicePeakFlops = 312e12;
  Measurement mfu;
  mfu.figure = Measurement::Figure::Mfu, mfu.value = 0.5, mfu.flops = FlopCount::Model;
  // 64 x 424.953 GFLOP / (0.5 x 312 TFLOP/s x 8) = 21.79 ms.
  CHECK(measuredStepSeconds(mfu, step, m) == doctest::Approx(64 * 424953002304.0 / (0.5 * 312e12 * 8)));
  mfu.peak = 624e12; // an mfu of another peak: half the step
  CHECK(measuredStepSeconds(mfu, step, m) == doctest::Approx(64 * 424953002304.0 / (0.5 * 624e12 * 8)));
  Measurement tflops;
  tflops.figure = Measurement::Figure::TflopsPerDevice, tflops.value = 150, tflops.flops = FlopCount::Hardware;
  CHECK(measuredStepSeconds(tflops, step, m) == doctest::Approx(64 * 562410699072.0 / (150e12 * 8)));
  Measurement tokens;
  tokens.figure = Measurement::Figure::TokensPerSecond, tokens.value = 1e6; // 64 x 2048 tokens
  CHECK(measuredStepSeconds(tokens, step, m) == doctest::Approx(64 * 2048 / 1e6));
  Measurement samples;
  samples.figure = Measurement::Figure::SamplesPerSecond, samples.value = 100;
  CHECK(measuredStepSeconds(samples, step, m) == doctest::Approx(0.64));
  Measurement time;
  time.figure = Measurement::Figure::StepTime, time.value = 3.5;
  CHECK(measuredStepSeconds(time, step, m) == 3.5);
}

TEST_CASE("calibrating the preset against runs of a known device finds that device's figures") {
  // The "measurements": the two runs simulated on an A100 whose GEMMs reach
  // 0.7 of the peak and whose framework costs 30 us a layer and pass.
  std::vector<Scenario> runs = loadStudyText(
      runsMeasuredOn({"cluster.device.gemm_efficiency=0.7", "cluster.device.layer_overhead=30us"}), "runs.yaml", ".", {});
  ComputeCalibrationOptions options;
  options.fit = {"gemm_efficiency", "layer_overhead"};
  ComputeCalibration c = calibrateCompute(runs, options);
  REQUIRE(c.figures.size() == 2);
  CHECK(c.figures[0].name == "gemm_efficiency");
  CHECK(c.figures[0].preset == doctest::Approx(0.859));
  CHECK(c.figures[0].fitted == doctest::Approx(0.7).epsilon(0.01));
  CHECK(c.figures[1].fitted == doctest::Approx(30).epsilon(0.1)); // us
  CHECK(c.figures[0].determined);
  CHECK(c.figures[1].determined);
  for (const CalibratedRun& r : c.runs) {
    CAPTURE(r.label);
    CHECK(r.after == doctest::Approx(r.measured).epsilon(0.005));
    CHECK(std::abs(r.before / r.measured - 1) > 0.1); // the preset was 14-19 % fast
  }
  // The device file holds what was fitted and loads as the fitted device.
  CHECK(contains(c.yaml, "name: a100-sxm4-80gb\n"));
  CHECK(contains(c.yaml, "calibration: {runs: 2, error: "));
  CHECK(c.device.gemmEfficiency == doctest::Approx(0.7).epsilon(0.01));

  // With every figure free, one run leaves the figures it barely touches to
  // their priors: the attention kernel and the memory-bound kernels of a
  // GEMM-bound run stay near the preset, and are said to.
  std::vector<Scenario> one(runs.begin(), runs.begin() + 1);
  ComputeCalibration loose = calibrateCompute(one, {});
  for (const CalibratedFigure& f : loose.figures) {
    CAPTURE(f.name);
    CHECK(f.determined == (f.name == "gemm_efficiency"));
  }
}

TEST_CASE("collsim calibrate RUNS.yaml writes a device file that runs the runs as fitted") {
  TempDir dir;
  std::vector<Scenario> truth = loadStudyText(smallRuns("{step_time: 1s}", "{step_time: 1s}"), "truth.yaml", ".",
                                              {"cluster.device.gemm_efficiency=0.75"});
  double step = toSeconds(
      simulateTrainingStep(truth[0].cluster, *truth[0].training, stepOptionsOf(truth[0], "ring", 1, nullptr)).iteration);
  // One run measured as an MFU (model count): the same step, as MFU.
  const double mfu = 3 * truth[0].training->model.flopsPerSample * 8 * 8 / (step * 312e12 * 8);
  std::string runs = dir.write("runs.yaml", smallRuns("{mfu: " + std::to_string(mfu) + ", flops: model}",
                                                      "{samples_per_second: 700}"));
  std::string device = dir / "fitted.yaml";
  CliResult r = cli({"calibrate", runs, "--fit", "gemm_efficiency", "--write-device", device, "--format", "json"});
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "\"device_file\": "));
  CHECK(contains(r.out, "\"fitted\": {\n    \"gemm_efficiency\": "));
  CHECK(contains(r.out, "\"measured\": \"mfu "));
  REQUIRE(std::filesystem::exists(device));
  // Run with the written file: each run's step is the fit's "after".
  CliResult after = cli({"run", runs, "--set", "cluster.device=" + device, "--format", "json"});
  REQUIRE(after.status == 0);
  CHECK(contains(after.out, "\"measured\": {"));
  nlohmann::json fit = nlohmann::json::parse(r.out), run = nlohmann::json::parse(after.out);
  for (int i = 0; i < 2; ++i)
    CHECK(run["points"][i]["step_us"].get<double>() * 1e-6 == doctest::Approx(fit["runs"][i]["after_s"].get<double>()));

  // Bad requests: exit 2 with what is wrong.
  CliResult unknown = cli({"calibrate", runs, "--fit", "tile"});
  CHECK(unknown.status == 2);
  CHECK(contains(unknown.err, "--fit: no figure 'tile' that these runs exercise (they do: gemm_efficiency, "
                              "attention.flash-2, memory_efficiency, layer_overhead)"));
  CliResult cluster = cli({"calibrate", runs, "--cluster", source("configs/clusters/dgx-a100-8.yaml")});
  CHECK(cluster.status == 2);
  CHECK(contains(cluster.err, "--cluster: training runs name their cluster"));
  std::string none = dir.write("none.yaml", "name: n\ncluster: " + source("configs/clusters/dgx-a100-8.yaml") +
                                                "\ntraining: {model: " + source("configs/models/mpt-125m.yaml") + "}\n");
  CliResult unmeasured = cli({"calibrate", none});
  CHECK(unmeasured.status == 2);
  CHECK(contains(unmeasured.err, "no run measures its step"));
  std::string mixed = dir.write("mixed.yaml", smallRuns("{step_time: 90ms}", "{step_time: 10ms}") +
                                                  "  - {name: h100, set: {cluster.device: h100-sxm5-80gb}, "
                                                  "measured: {step_time: 50ms}}\n");
  CliResult devices = cli({"calibrate", mixed});
  CHECK(devices.status == 2);
  CHECK(contains(devices.err, "calibrate fits one device, but a runs on a100-sxm4-80gb and h100 on h100-sxm5-80gb"));
  // A measured figure that says nothing of its FLOP count, located.
  std::string uncounted = dir.write("uncounted.yaml", smallRuns("{mfu: 0.5}", "{step_time: 10ms}"));
  CliResult count = cli({"calibrate", uncounted});
  CHECK(count.status == 2);
  CHECK(contains(count.err, uncounted + ":10:"));
  CHECK(contains(count.err, "say how the FLOPs were counted"));
}

namespace {

// A PyTorch profiler trace of `steps` steps in which the device spends
// the given seconds per step in each class, one kernel each, in order:
// GEMM, attention, memory, an exposed collective, then idle.
std::string kinetoTrace(const ProfileClasses& c, int steps) {
  std::string events;
  double t = 1000; // us
  auto event = [&](const std::string& cat, const std::string& name, double start, double seconds) {
    char b[512];
    std::snprintf(b, sizeof b,
                  "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %.6f, "
                  "\"dur\": %.6f, \"args\": {\"device\": 0, \"stream\": 7}}",
                  events.empty() ? "" : ",\n", cat.c_str(), name.c_str(), start, seconds * 1e6);
    events += b;
  };
  for (int s = 0; s < steps; ++s) {
    const double start = t;
    event("gpu_user_annotation", "ProfilerStep#" + std::to_string(s + 1), start, c.step);
    for (auto [name, seconds] : {std::pair<const char*, double>{"sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n", c.gemm},
                                 {"flash_fwd_kernel", c.attention},
                                 {"vectorized_elementwise_kernel", c.memory},
                                 {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", c.exposed}}) {
      event("kernel", name, t, seconds);
      t += seconds * 1e6;
    }
    t = start + c.step * 1e6;
  }
  return "{\"traceEvents\": [\n" + events + "\n]}\n";
}

} // namespace

TEST_CASE("profiled runs pin every compute figure that step times cannot") {
  // The "profiles": both runs simulated on an A100 whose GEMMs reach 0.7 of
  // the peak, flash attention 0.8 of its figures, memory-bound kernels 0.6
  // of HBM, and whose framework costs 40 us a layer and pass, each written
  // as a trace of two steps in that run's classes.
  TempDir dir;
  const std::vector<std::string> truthSets = {"cluster.device.gemm_efficiency=0.7", "cluster.device.memory_efficiency=0.6",
                                              "cluster.device.attention_efficiency=[0.52,0.44]",
                                              "cluster.device.layer_overhead=40us"};
  std::vector<Scenario> truth = loadStudyText(smallRuns("{step_time: 1s}", "{step_time: 1s}"), "truth.yaml", ".", truthSets);
  std::vector<std::string> traces;
  std::vector<ProfileClasses> measured;
  for (const Scenario& s : truth) {
    measured.push_back(predictedClasses(simulateTrainingStep(s.cluster, *s.training, stepOptionsOf(s, "ring", 1, nullptr))));
    traces.push_back(dir.write("trace-" + s.variant + ".json", kinetoTrace(measured.back(), 2)));
  }
  // Read back, a trace is what was written.
  ProfileClasses read = breakdownOf(readProfile(traces[1])).perStep;
  CHECK(read.gemm == doctest::Approx(measured[1].gemm));
  CHECK(read.idle == doctest::Approx(measured[1].idle));
  CHECK(read.step == doctest::Approx(measured[1].step));

  std::vector<Scenario> runs =
      loadStudyText(smallRuns("{profile: " + traces[0] + "}", "{profile: " + traces[1] + "}"), "runs.yaml", ".", {});
  ComputeCalibration c = calibrateCompute(runs, {});
  REQUIRE(c.figures.size() == 4);
  // Every figure is found again within a few per cent, and determined.
  const double expected[] = {0.7, 0.8, 0.6, 40};
  for (std::size_t j = 0; j < 4; ++j) {
    CAPTURE(c.figures[j].name);
    CHECK(c.figures[j].fitted == doctest::Approx(expected[j]).epsilon(0.03));
    CHECK(c.figures[j].determined);
  }
  for (std::size_t i = 0; i < 2; ++i) CHECK(c.runs[i].after == doctest::Approx(measured[i].step).epsilon(0.002));
  // The same two runs measured by their steps alone leave the attention
  // and memory figures to their priors.
  ComputeCalibration steps = calibrateCompute(loadStudyText(runsMeasuredOn(truthSets), "steps.yaml", ".", {}), {});
  CHECK(!steps.figures[1].determined);
  CHECK(!steps.figures[2].determined);
  // A profile's step is the run's measured step in collsim run too.
  CliResult r = cli({"run", dir.write("profiled.yaml", smallRuns("{profile: trace-a.json}", "{step_time: 10ms}")),
                     "--format", "csv"});
  REQUIRE(r.status == 0);
  Csv csv = Csv::parse(r.out);
  CHECK(std::stod(csv.at(0, "measured.step_us")) == doctest::Approx(measured[0].step * 1e6));
  // A profile that is not there fails its point where the study names it.
  CliResult missing = cli({"run", dir.write("missing.yaml", smallRuns("{profile: nope.json}", "{step_time: 10ms}"))});
  CHECK(missing.status == 3);
  CHECK(contains(missing.out, "missing.yaml:10:"));
  CHECK(contains(missing.out, "measured.profile: no profile '"));
}

TEST_CASE("calibrating on some runs predicts the others held out") {
  // Two runs of the known device (GEMMs at 0.7): fitted on the first alone,
  // its GEMM efficiency is found again, and the second, which the fit never
  // saw, comes out as measured, where the preset was 14-19 % fast.
  const std::string measured = runsMeasuredOn({"cluster.device.gemm_efficiency=0.7"});
  std::vector<Scenario> runs = loadStudyText(measured, "runs.yaml", ".", {});
  ComputeCalibrationOptions options;
  options.fit = {"gemm_efficiency"};
  options.on = {"a"};
  ComputeCalibration c = calibrateCompute(runs, options);
  REQUIRE(c.runs.size() == 1);
  REQUIRE(c.heldOut.size() == 1);
  CHECK(c.heldOut[0].label == "b");
  CHECK(c.heldOut[0].after == doctest::Approx(c.heldOut[0].measured).epsilon(0.01));
  CHECK(c.heldOut[0].before < 0.9 * c.heldOut[0].measured);
  // A run that is not there is named with the ones that are.
  options.on = {"c"};
  CHECK_THROWS_WITH_AS(calibrateCompute(runs, options), doctest::Contains("--on: no measured run 'c' (they are: a, b)"),
                       InputError);
  options.on = {"a"}, options.predict = {"x"};
  CHECK_THROWS_WITH_AS(calibrateCompute(runs, options), doctest::Contains("--predict: no measured run 'x'"), InputError);
  // On the command line, with the held-out table.
  TempDir dir;
  CliResult r = cli({"calibrate", dir.write("runs.yaml", measured), "--on", "a", "--fit", "gemm_efficiency"});
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "# held out: the other measured runs, which the fit did not see"));
  CHECK(contains(r.out, "over 1 run(s)"));
  CliResult log = cli({"calibrate", source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt"), "--cluster",
                       source("configs/clusters/dgx-a100-8.yaml"), "--on", "a"});
  CHECK(log.status == 2);
  CHECK(contains(log.err, "--on and --predict choose among training runs"));
}
