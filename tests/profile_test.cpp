// Profiles in the formats the profilers write (tests/data/profiles/: small
// files the project wrote in those formats), classified by kind of kernel
// and broken down per step; the expected figures are worked out by hand
// from the files' timestamps in the comments.
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/config/config_node.h"
#include "sim/validation/kernel_class.h"
#include "sim/validation/profile.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

std::string profileFile(const std::string& name) { return source("tests/data/profiles/" + name); }

void checkClasses(const ProfileClasses& c, double gemm, double attention, double memory, double communication,
                  double exposed, double idle, double step) {
  CHECK(c.gemm == doctest::Approx(gemm * 1e-6));
  CHECK(c.attention == doctest::Approx(attention * 1e-6));
  CHECK(c.memory == doctest::Approx(memory * 1e-6));
  CHECK(c.communication == doctest::Approx(communication * 1e-6));
  CHECK(c.exposed == doctest::Approx(exposed * 1e-6));
  CHECK(c.idle == doctest::Approx(idle * 1e-6));
  CHECK(c.step == doctest::Approx(step * 1e-6));
}

} // namespace

TEST_CASE("kernels are classed by their names, the way profilers print them") {
  CHECK(classifyKernel("ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)") ==
        KernelClass::Communication);
  CHECK(classifyKernel("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
                       "cutlass::bfloat16_t> >(Flash_fwd_params)") == KernelClass::Attention);
  CHECK(classifyKernel("fmha_cutlassF_bf16_aligned_64x64_rf_sm80") == KernelClass::Attention);
  CHECK(classifyKernel("_attn_fwd") == KernelClass::Attention);
  CHECK(classifyKernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1") ==
        KernelClass::Gemm);
  CHECK(classifyKernel("nvjet_hsh_256x128_64x4_1x2_h_bz_coopA_NTN") == KernelClass::Gemm);
  CHECK(classifyKernel("ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn") == KernelClass::Gemm);
  CHECK(classifyKernel("void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float> >") ==
        KernelClass::Memory);
  // Ascend: by operator type and task type as well as name.
  CHECK(classifyKernel("aclnnMatmul_MatMulV2_MatMul", "MatMulV2", "AI_CORE") == KernelClass::Gemm);
  CHECK(classifyKernel("aclnnFlashAttentionScoreGrad_1", "FlashAttentionScoreGrad", "MIX_AIC") == KernelClass::Attention);
  CHECK(classifyKernel("hcom_allReduce__573_0_1", "hcom_allReduce_", "HCCL") == KernelClass::Communication);
  CHECK(classifyKernel("aclnnRmsNorm_RmsNorm_RmsNorm", "RmsNorm", "AI_VECTOR_CORE") == KernelClass::Memory);
}

TEST_CASE("a PyTorch profiler trace: each device step by kind of kernel, its exposed communication and idle time") {
  // Device 0, ProfilerStep#2 on the device, [1100, 2100) us: a GEMM
  // [1100, 1500), flash attention [1500, 1700), GELU [1700, 1800), a copy
  // [1800, 1820) and, on the NCCL stream, an AllGather [1750, 2000).
  // Compute covers [1100, 1820) = 720 us, all kernels [1100, 2000) = 900:
  // 180 us of the AllGather are exposed, 100 us idle. ProfilerStep#3,
  // [2100, 3100): GEMM 500, attention 200, a layer norm 100, a
  // ReduceScatter [2900, 3000): 100 exposed, 100 idle. The mean step: GEMMs
  // 450 us, attention 200, memory (120 + 100) / 2 = 110, collectives 175
  // of which 140 exposed, idle 100, the step 1000.
  Profile p = readProfile(profileFile("kineto-two-steps.json"));
  CHECK(p.format == "PyTorch profiler (Kineto) trace");
  CHECK(p.devices == std::vector<int>{0, 1});
  CHECK(p.device == 0);
  REQUIRE(p.steps.size() == 2);
  CHECK(p.steps[0].name == "ProfilerStep#2");
  ProfileBreakdown b = breakdownOf(p);
  CHECK(b.steps == 2);
  checkClasses(b.perStep, 450, 200, 110, 175, 140, 100, 1000);
  // layer.0 spans [1100, 1800) and [2100, 2900): its kernels (by start)
  // are the GEMMs, attention, the GELU and the norm, and the AllGather that
  // started inside it; per step: 750 us, GEMMs 450, attention 200, memory
  // 100, communication 125.
  REQUIRE(b.layers.size() == 1);
  CHECK(b.layers[0].name == "layer.0");
  CHECK(b.layers[0].count == 1);
  const ProfileClasses& l = b.layers[0].classes;
  CHECK(l.step == doctest::Approx(750e-6));
  CHECK(l.gemm == doctest::Approx(450e-6));
  CHECK(l.attention == doctest::Approx(200e-6));
  CHECK(l.memory == doctest::Approx(100e-6));
  CHECK(l.communication == doctest::Approx(125e-6));
  // The longest kernel of each class comes first among its class.
  REQUIRE(!b.topKernels.empty());
  CHECK(b.topKernels.front().kind == KernelClass::Gemm);
  CHECK(b.topKernels.front().name.rfind("ampere_bf16_s16816gemm", 0) == 0); // 500 us against 400
  // Device 1: its one GEMM, in the same step windows.
  Profile other = readProfile(profileFile("kineto-two-steps.json"), 1);
  CHECK(breakdownOf(other).perStep.gemm == doctest::Approx(999e-6 / 2));
  CHECK_THROWS_WITH_AS(readProfile(profileFile("kineto-two-steps.json"), 5),
                       doctest::Contains("no kernels of device 5 (it has: 0, 1)"), ConfigError);
}

TEST_CASE("Ascend profiles: msprof's op summary and timeline, torch_npu's kernel details") {
  // op summary, device 0 (no step marks: one step from the first kernel
  // to the last): MatMulV2 [0, 400), FlashAttentionScore [400, 600), Add
  // [600, 700), an HCCL AllReduce [650, 950): compute 700 us, all 950,
  // 250 exposed, none idle.
  for (const char* file : {"op_summary_0_1_1.csv", "msprof-timeline.json"}) {
    CAPTURE(file);
    Profile p = readProfile(profileFile(file));
    CHECK(p.steps.empty());
    checkClasses(breakdownOf(p).perStep, 400, 200, 100, 300, 250, 0, 950);
  }
  CHECK(readProfile(profileFile("op_summary_0_1_1.csv")).devices == std::vector<int>{0, 1});
  // kernel_details: step 4 [0, 600): MatMulV3 300, RmsNorm 100, a
  // ReduceScatter [350, 600) of which 200 exposed; step 5 [1000, 1800):
  // MatMulV3 500, the attention's backward [1600, 1800), 100 idle.
  Profile details = readProfile(profileFile("kernel_details.csv"));
  CHECK(details.format == "torch_npu kernel_details");
  REQUIRE(details.steps.size() == 2);
  CHECK(details.steps[1].name == "step 5");
  checkClasses(breakdownOf(details).perStep, 400, 100, 50, 125, 100, 50, 700);
}

TEST_CASE("a profile that cannot be read says where") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(readProfile(dir.write("bad.json", "{\"traceEvents\": [\n  {\"ph\": \"X\",\n  oops}\n]}")),
                       doctest::Contains("bad.json:3:4: not a trace-event JSON file"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("empty.json", "{\"traceEvents\": []}")),
                       doctest::Contains("no device kernels"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("cpu.json", "[{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
                                                         "\"ts\": 1, \"dur\": 2}]")),
                       doctest::Contains("no device kernels"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("cols.csv", "Name,Type\nmm,MatMul\n")),
                       doctest::Contains("cols.csv:1: no Task Start Time(us) (or Start Time(us)) column"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("num.csv", "Name,Start Time(us),Duration(us)\nmm,1,2\nmm,3,-4\n")),
                       doctest::Contains("num.csv:3: Duration(us) '-4' is not a time in microseconds"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir / "none.json"), doctest::Contains("none.json: profile: "), ConfigError);
  // Times no profiler writes: refused with the event, not clamped or summed into a layer of -4.6e15 ms.
  const std::string kernel = R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "args": {"device": 0}, )";
  CHECK_THROWS_WITH_AS(readProfile(dir.write("neg.json", "[" + kernel + R"("ts": 5, "dur": 2},)" + kernel +
                                                             R"("ts": 9, "dur": -3})" + "]")),
                       doctest::Contains("neg.json: traceEvents[1] ('gemm'): dur -3 is not a duration"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("ts.json", "[" + kernel + R"("ts": -4.6e18, "dur": 2}])")),
                       doctest::Contains("ts.json: traceEvents[0] ('gemm'): ts -4.6e18 is not a time"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("text.json", "[" + kernel + R"("ts": "soon", "dur": 2}])")),
                       doctest::Contains("ts soon is not a time"), ConfigError);
  CHECK_THROWS_WITH_AS(readProfile(dir.write("day.csv", "Name,Start Time(us),Duration(us)\nmm,1,2\nmm,3,9e12\n")),
                       doctest::Contains("day.csv:3: Duration(us) '9e12' is not a time in microseconds (from 0 to a day)"),
                       ConfigError);
}

TEST_CASE("collsim profile sets a profile beside the run it measured") {
  // The MPT-125M run of tests/data/training/measured-mpt-125m.yaml against
  // the two-step trace: the table has every class, measured and predicted.
  CliResult r = cli({"profile", profileFile("kineto-two-steps.json"), "--scenario",
                     source("tests/data/training/measured-mpt-125m.yaml"), "--variant", "s512-mb1"});
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "# profile: " + profileFile("kineto-two-steps.json") +
                            " (PyTorch profiler (Kineto) trace), device 0 of 2; 2 steps (ProfilerStep#2 .. ProfilerStep#3)"));
  CHECK(contains(r.out, "#  class                  measured_ms  share   predicted_ms  share   error"));
  CHECK(contains(r.out, "   gemm                         0.450"));
  CHECK(contains(r.out, "   communication                0.175   17.5%             -       -        -"));
  CHECK(contains(r.out, "# layers: "));
  CHECK(contains(r.out, "# collsim, one block's passes (forward, backward, recomputation) over one micro-batch: gemm "));
  CliResult json = cli({"profile", profileFile("op_summary_0_1_1.csv"), "--format", "json"});
  REQUIRE(json.status == 0);
  CHECK(contains(json.out, "\"gemm_s\": 0.000399999"));
  CHECK(!contains(json.out, "\"predicted\""));
  // A study of several runs needs the one named.
  CliResult unnamed = cli({"profile", profileFile("op_summary_0_1_1.csv"), "--scenario",
                           source("tests/data/training/measured-mpt-125m.yaml")});
  CHECK(unnamed.status == 2);
  CHECK(contains(unnamed.err, "has 2 points; name one"));
  CliResult wrong = cli({"profile", profileFile("op_summary_0_1_1.csv"), "--scenario",
                         source("tests/data/training/measured-mpt-125m.yaml"), "--variant", "x"});
  CHECK(wrong.status == 2);
  CHECK(contains(wrong.err, "no variant 'x' in"));
}

// The step --scenario simulates is under the limits every command keeps
// (it ran unbounded: a 16,384-device step in full took what it took).
TEST_CASE("collsim profile's prediction is estimated first: refused past a limit, or printed") {
  const std::vector<std::string> args{"profile", profileFile("kineto-two-steps.json"), "--scenario",
                                      source("tests/data/training/measured-mpt-125m.yaml"), "--variant", "s512-mb1"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> a = args;
    a.insert(a.end(), more.begin(), more.end());
    return cli(a);
  };
  CliResult refused = with({"--max-events", "100"});
  CHECK(refused.status == 2);
  CHECK(contains(refused.err, "measured-mpt-125m: about "));
  CHECK(contains(refused.err, "the limit is 100 events: raise --max-events"));
  CHECK(refused.out.empty());
  CliResult estimate = with({"--estimate"});
  CHECK(estimate.status == 0);
  CHECK(contains(estimate.out, "measured-mpt-125m: about "));
  CHECK(!contains(estimate.out, "# profile:")); // nothing simulated, nothing reported
}
