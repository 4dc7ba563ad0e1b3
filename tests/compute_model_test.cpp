// The compute model: kernels on a device (operation_cost.h), a
// transformer's layers timed by their operations (layer_compute.h), and
// the device presets. Expectations are worked out by hand in the comments
// from the roofline and the FLOP counts, not read back from the code.
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/config/cluster_config.h"
#include "sim/config/config_node.h"
#include "sim/config/device_presets.h"
#include "sim/config/model_config.h"
#include "sim/workload/layer_compute.h"
#include "sim/workload/operation_cost.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

// A round device: 100 TFLOPS reached in full, 1 TB/s, 100 units of 128 x 128 tiles.
DeviceModel roundDevice() {
  DeviceModel d;
  d.flops = 100e12;
  d.memoryBandwidth = 1'000'000'000'000ULL;
  d.computeUnits = 100;
  d.tileRows = d.tileColumns = 128;
  return d;
}

ModelSpec shape(const std::string& transformer) {
  std::string yaml = "{name: t, transformer: {" + transformer + "}, precision: {weights: 2}, micro_batch: 1}";
  return loadModel(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("t.yaml")));
}

} // namespace

TEST_CASE("a GEMM takes whole waves of whole tiles, or its bytes at memory speed") {
  DeviceModel d = roundDevice();
  // 1280 x 1280 x 1000: 10 x 10 = 100 tiles, one wave: 2 x 1280^2 x 1000 FLOPs
  // = 3.2768 GFLOP at 100 TFLOPS = 32.768 us.
  CHECK(gemmSeconds(d, {1280, 1280, 1000}, 2) == doctest::Approx(32.768e-6));
  // One row more: 11 x 10 = 110 tiles, two waves, twice the time for 0.08 % more work.
  CHECK(gemmSeconds(d, {1281, 1280, 1000}, 2) == doctest::Approx(2 * 32.768e-6));
  // The efficiency scales the rate: at 0.8, 32.768 / 0.8 = 40.96 us.
  d.gemmEfficiency = 0.8;
  CHECK(gemmSeconds(d, {1280, 1280, 1000}, 2) == doctest::Approx(40.96e-6));
  // A thin product is bound by memory: 1280 x 1280 x 8 reads 2 x (1280 x 8 x 2)
  // and writes 1280^2 x 2 bytes = 3,317,760 B = 3.318 us at 1 TB/s, where its
  // one wave computes in 0.328 us (at 0.8: 0.262 / 0.8).
  CHECK(gemmSeconds(d, {1280, 1280, 8}, 2) == doctest::Approx(3.31776e-6));
  // Without units, no quantization: FLOPs / rate.
  d.computeUnits = 0;
  CHECK(gemmSeconds(d, {1281, 1280, 1000}, 2) == doctest::Approx(2.0 * 1281 * 1280 * 1000 / 80e12));
  // Elementwise kernels move their bytes at memory x its efficiency.
  d.memoryEfficiency = 0.5;
  CHECK(memorySeconds(d, 1e6) == doctest::Approx(2e-6));
}

TEST_CASE("a block's time is its GEMMs' FLOPs and flash attention's half of 4 s^2 h at their rates") {
  // Memory so fast that only FLOPs count, no quantization: a block of hidden
  // h = 1024, 8 heads, FFN 4096 (not gated), sequence s = 2048, one sample.
  // GEMMs forward: 2 s x (QKV 3 h^2 + output h^2 + FFN 2 h f) = 2 x 2048 x
  // 12,582,912 = 51.54 GFLOP at 100 TFLOPS x 0.5 = 1030.8 us; backward twice.
  // Flash attention, causal: 4 s^2 h / 2 = 8.59 GFLOP at 100 x 0.25 = 343.6 us
  // forward, 2.5 x as many FLOPs at 100 x 0.2 backward = 1073.7 us.
  DeviceModel d = roundDevice();
  d.computeUnits = 0;
  d.memoryBandwidth = 1ULL << 62;
  d.gemmEfficiency = 0.5, d.attentionForward = 0.25, d.attentionBackward = 0.2;
  ModelSpec m = shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, sequence: 2048, gated_ffn: false, "
                      "recomputation: none");
  const double s = 2048, h = 1024, f = 4096;
  const double gemm = 2 * s * (4 * h * h + 2 * h * f) / 50e12, flash = 4 * s * s * h / 2;
  std::vector<LayerCompute> layers = layerCompute(m, d, {});
  REQUIRE(layers.size() == 4); // embedding, 2 blocks, head
  const LayerCompute& block = layers[1];
  CHECK(block.block);
  CHECK(toSeconds(block.forward.total()) == doctest::Approx(gemm + flash / 25e12).epsilon(1e-6));
  CHECK(toSeconds(block.backward.total()) == doctest::Approx(2 * gemm + 2.5 * flash / 20e12).epsilon(1e-6));
  CHECK(block.recompute.total() == 0);
  // Tensor parallelism of 4 divides every GEMM and the heads: a quarter of each.
  LayerCompute split = layerCompute(m, d, {4, 1, false})[1];
  CHECK(double(split.forward.total()) == doctest::Approx(double(block.forward.total()) / 4).epsilon(1e-6));
  // Full recomputation repeats the forward with its collectives; selective
  // repeats the attention core, which flash attention recomputes anyway.
  LayerCompute full = layerCompute(shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, "
                                         "sequence: 2048, gated_ffn: false, recomputation: full"), d, {})[1];
  CHECK(full.recompute.total() == full.forward.total());
  CHECK(full.recomputeCollectives);
  LayerCompute selective = layerCompute(shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, "
                                              "sequence: 2048, gated_ffn: false, recomputation: selective"), d, {})[1];
  CHECK(selective.recompute.total() == 0);
  // Standard attention: QK^T and the product with V, 2 s^2 h each, as GEMMs at 0.5.
  LayerCompute standard = layerCompute(shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, "
                                             "sequence: 2048, gated_ffn: false, recomputation: selective, "
                                             "attention: standard"), d, {})[1];
  CHECK(toSeconds(standard.recompute.attention) == doctest::Approx(4 * s * s * h / 50e12).epsilon(1e-6));
  CHECK(standard.recompute.rest == 0);
  CHECK(!standard.recomputeCollectives);
}

TEST_CASE("a model that names its attention kernel runs at that kernel's figures on the device") {
  // The round device with two kernels by name, its own figures 0.25 / 0.2.
  // Block of hidden 1024, sequence 2048, one sample, memory and GEMMs free
  // of quantization: the attention core forward is 4 s^2 h / 2 = 4.295
  // GFLOP (causal), backward 2.5 x as many.
  DeviceModel d = roundDevice();
  d.name = "round";
  d.computeUnits = 0;
  d.memoryBandwidth = 1ULL << 62;
  d.attentionForward = 0.25, d.attentionBackward = 0.2;
  d.attentionKernels = {{"flash-1", 0.125, 0.1}, {"flash-2", 0.25, 0.2}};
  const std::string block = "layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, sequence: 2048, "
                            "gated_ffn: false, recomputation: none, attention: ";
  const double s = 2048, h = 1024, flash = 4 * s * s * h / 2;
  LayerCompute own = layerCompute(shape(block + "flash"), d, {})[1];
  LayerCompute older = layerCompute(shape(block + "flash-1"), d, {})[1];
  // Half the rate forward and backward: the attention core takes twice as
  // long (forward 171.8 us more, backward 2.5 x 4.295 G / 10 T - / 20 T = 536.9 us more).
  CHECK(toSeconds(older.forward.attention - own.forward.attention) == doctest::Approx(flash / 12.5e12 - flash / 25e12));
  CHECK(toSeconds(older.backward.attention - own.backward.attention) ==
        doctest::Approx(2.5 * flash / 10e12 - 2.5 * flash / 20e12));
  CHECK(older.forward.rest == own.forward.rest);
  // A kernel the device has no figures for is an input error that lists the ones it has.
  try {
    layerCompute(shape(block + "flash-3"), d, {});
    FAIL("no error for a kernel the device lacks");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "round has no figures for attention: flash-3 (it has: flash-1, flash-2)");
  }
  // And a name no kernel has is refused where the model file gives it.
  CHECK_THROWS_WITH_AS(shape(block + "flash-4"), doctest::Contains("is not one of: flash, standard, flash-1"),
                       InputError);
  // The presets' older kernels are slower than their own (the papers' ratios).
  for (const char* name : {"a100-sxm4-80gb", "h100-sxm5-80gb"}) {
    const DeviceModel& preset = *findDevicePreset(name);
    REQUIRE(!preset.attentionKernels.empty());
    for (const AttentionKernel& k : preset.attentionKernels) {
      CAPTURE(k.name);
      CHECK(k.forward <= preset.attentionForward);
      CHECK(k.backward <= preset.attentionBackward);
    }
  }
}

TEST_CASE("a micro-batch of one sequence leaves the GEMMs of a wide TP split in part-empty waves") {
  // On an A100 (108 SMs, 256 x 128 tiles), Llama 3 70B's QKV GEMM under tp 8
  // on one 8192-token sequence is 8192 x 1280 x 8192: 32 x 10 = 320 tiles in
  // 3 waves of 108 (324 slots, 98.8 % used); on 2,048 tokens, 8 x 10 = 80
  // tiles in one wave (74 % used), so a shorter sequence runs slower per FLOP.
  DeviceModel a100 = *findDevicePreset("a100-sxm4-80gb");
  auto rate = [&](double tokens) {
    GemmShape g{tokens, 1280, 8192};
    return gemmFlops(g) / gemmSeconds(a100, g, 2);
  };
  const double best = a100.flops * a100.gemmEfficiency;
  CHECK(rate(8192) == doctest::Approx(best * 320 / 324));
  CHECK(rate(2048) == doctest::Approx(best * 80 / 108));
}

TEST_CASE("every GPU preset names its own device, with its datasheet's peak and memory") {
  struct Expect {
    const char* file;
    const char* device;
    double tflops;
    double memoryGiB;
  };
  for (Expect e : {Expect{"dgx-a100-8", "a100-sxm4-80gb", 312, 80}, Expect{"p4d-2x8-efa", "a100-sxm4-40gb", 312, 40},
                   Expect{"dgx-h100-8", "h100-sxm5-80gb", 989, 80}, Expect{"h100-2x8-ib400", "h100-sxm5-80gb", 989, 80},
                   Expect{"v100-cubemesh-8", "v100-sxm2-32gb", 125, 16}, Expect{"atlas-800t-a2-8", "ascend-910b", 320, 64}}) {
    CAPTURE(e.file);
    Cluster c = loadClusterFile(source(std::string("configs/clusters/") + e.file + ".yaml"), {}).cluster;
    CHECK(c.device.name == e.device);
    CHECK(c.device.flops == doctest::Approx(e.tflops * 1e12));
    CHECK(double(c.device.memory) == doctest::Approx(e.memoryGiB * double(1ULL << 30)));
    CHECK(c.device.gemmEfficiency < 1);
  }
  // A cluster that names none is the seed article's Ascend 910.
  Cluster seed = loadClusterFile(source("configs/clusters/hccs-ring-8.yaml"), {}).cluster;
  CHECK(seed.device.name == "ascend-910");
  CHECK(seed.device.flops == doctest::Approx(256e12));
  // An unknown name is refused with the known ones.
  CHECK_THROWS_WITH_AS(loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"), {"device.name=a200"}),
                       doctest::Contains("unknown device 'a200' (expected one of: ascend-910, "), ConfigError);
}

TEST_CASE("a device's figures set by the user win over its named kernels' figures") {
  // The A100 with its attention set by the user: every kernel a model may
  // name runs at it, where the preset's flash-triton figures were ignored
  // before. A kernel set by name (a calibrated file) takes its own.
  auto device = [](const std::string& yaml) {
    return loadDevice(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("d.yaml")));
  };
  DeviceModel set = device("{name: a100-sxm4-80gb, attention_efficiency: [0.4, 0.3]}");
  REQUIRE(set.attentionKernels.size() == 3);
  for (const AttentionKernel& k : set.attentionKernels) {
    CAPTURE(k.name);
    CHECK(k.forward == 0.4);
    CHECK(k.backward == 0.3);
  }
  DeviceModel named = device("{name: a100-sxm4-80gb, attention_efficiency: [0.4, 0.3], "
                             "attention_kernels: {flash-triton: [0.2, 0.15]}}");
  const std::string block = "layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, sequence: 2048, "
                            "gated_ffn: false, recomputation: none, attention: ";
  // The attention core of one sample: 4 s^2 h / 2 = 4.295 GFLOP forward at
  // 312 TFLOPS x 0.4 = 34.4 us, at x 0.2 twice that; backward 2.5 x the
  // FLOPs at 0.3 and 0.15. Everything else in the block is the same.
  const double s = 2048, h = 1024, flash = 4 * s * s * h / 2, peak = 312e12;
  LayerCompute own = layerCompute(shape(block + "flash"), named, {})[1];
  LayerCompute triton = layerCompute(shape(block + "flash-triton"), named, {})[1];
  LayerCompute flash1 = layerCompute(shape(block + "flash-1"), named, {})[1];
  CHECK(toSeconds(triton.forward.attention - own.forward.attention) ==
        doctest::Approx(flash / (peak * 0.2) - flash / (peak * 0.4)).epsilon(1e-6));
  CHECK(toSeconds(triton.backward.attention - own.backward.attention) ==
        doctest::Approx(2.5 * flash / (peak * 0.15) - 2.5 * flash / (peak * 0.3)).epsilon(1e-6));
  CHECK(flash1.forward.attention == own.forward.attention); // at the user's 0.4
  // A kernel collsim does not know is refused where the file names it.
  CHECK_THROWS_WITH_AS(device("{name: a100-sxm4-80gb, attention_kernels: {flash-5: [0.2, 0.15]}}"),
                       doctest::Contains("d.yaml:1:53: attention_kernels.flash-5: no attention kernel 'flash-5'"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(device("{name: a100-sxm4-80gb, attention_kernels: {flash-2: [0.2]}}"),
                       doctest::Contains("expected [forward, backward]"), ConfigError);
}

TEST_CASE("a layer's overhead costs every pass over every layer once") {
  // 20 us more for the embedding, each block and the head, forward and
  // backward, and for the recomputed forward of each block under full
  // recomputation; nothing else moves.
  DeviceModel d = roundDevice();
  ModelSpec m = shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1000, sequence: 2048, "
                      "recomputation: full");
  std::vector<LayerCompute> base = layerCompute(m, d, {});
  d.layerOverhead = 20'000'000; // ps
  std::vector<LayerCompute> slow = layerCompute(m, d, {});
  REQUIRE(slow.size() == 4);
  for (std::size_t i = 0; i < slow.size(); ++i) {
    CAPTURE(i);
    CHECK(slow[i].forward.total() - base[i].forward.total() == 20'000'000);
    CHECK(slow[i].backward.total() - base[i].backward.total() == 20'000'000);
    CHECK(slow[i].recompute.total() - base[i].recompute.total() == (slow[i].block ? 20'000'000 : 0));
    CHECK(slow[i].forward.attention == base[i].forward.attention);
  }
  // One device, whole model: 4 layers forward; backward 4 and the 2 blocks' recomputation.
  d.layerOverhead = 0;
  PassTimes before = passTimes(m, d);
  d.layerOverhead = 20'000'000;
  PassTimes after = passTimes(m, d);
  CHECK(after.forward - before.forward == 4 * 20'000'000);
  CHECK(after.backward - before.backward == 6 * 20'000'000);
}

TEST_CASE("a cluster names its device by preset, or by a device file beside it or on the command line") {
  TempDir dir;
  dir.write("fitted.yaml", "name: a100-sxm4-80gb\ngemm_efficiency: 0.7\nlayer_overhead: 15us\n"
                           "calibration: {runs: 3, error: 0.04}\n");
  const std::string cluster = "name: c\ndevices: 8\nscale_up: {shape: switch, bandwidth: 300GB/s, latency: 1us}\n";
  Cluster byFile = loadClusterFile(dir.write("by-file.yaml", cluster + "device: fitted.yaml\n"), {}).cluster;
  CHECK(byFile.device.name == "a100-sxm4-80gb");
  CHECK(byFile.device.gemmEfficiency == 0.7);
  CHECK(byFile.device.layerOverhead == 15'000'000);
  CHECK(byFile.device.calibration.runs == 3);
  CHECK(byFile.device.calibration.error == 0.04);
  CHECK(byFile.device.flops == 312e12); // the rest is the preset's
  Cluster byName = loadClusterFile(dir.write("by-name.yaml", cluster + "device: h100-sxm5-80gb\n"), {}).cluster;
  CHECK(byName.device.name == "h100-sxm5-80gb");
  // On the command line a file is relative to the current folder, and a
  // figure set after it wins.
  Cluster overridden = loadClusterFile(source("configs/clusters/dgx-a100-8.yaml"),
                                       {"device=" + dir / "fitted.yaml", "device.gemm_efficiency=0.75"}).cluster;
  CHECK(overridden.device.gemmEfficiency == 0.75);
  CHECK(overridden.device.layerOverhead == 15'000'000);
  // A scenario's --set cluster.device=FILE reaches the cluster it names:
  // the toy model's 1 ms forward over 4 layers takes 4 x 15 us more.
  std::string run = dir.write("run.yaml", "name: r\ncluster: by-name.yaml\ntraining: {model: " +
                                              source("tests/data/training/toy-model.yaml") + "}\n");
  CliResult r = cli({"run", run, "--set", "cluster.device=" + dir / "fitted.yaml", "--format", "json"});
  CHECK(r.status == 0);
  CHECK(contains(r.out, "\"forward_us\": 1060.0"));
  // An error inside the device file points at its own line.
  dir.write("bad.yaml", "name: a100-sxm4-80gb\ngemm_efficiency: 1.5\n");
  const std::string inFile = dir / "bad.yaml" + ":2:18: device.gemm_efficiency: a share of the device's peak";
  CHECK_THROWS_WITH_AS(loadClusterFile(dir.write("by-bad.yaml", cluster + "device: bad.yaml\n"), {}),
                       doctest::Contains(inFile.c_str()), ConfigError);
  const std::string missing = "device file '" + dir / "none.yaml" + "': no such file";
  CHECK_THROWS_WITH_AS(loadClusterFile(dir.write("by-none.yaml", cluster + "device: none.yaml\n"), {}),
                       doctest::Contains(missing.c_str()), ConfigError);
}

TEST_CASE("a layer's passes split by kind of kernel add up to its time") {
  // The block of the test above (GEMMs 1030.8 us forward at 0.5 of 100
  // TFLOPS, flash attention 343.6 us forward and 1073.7 us backward), with
  // full recomputation and 20 us of overhead a pass: its GEMMs run in the
  // forward, twice in backward and again in the recomputed forward: 4 x
  // 1030.8 us; attention forward twice and backward once; three passes of
  // overhead; memory free (its bandwidth is huge).
  DeviceModel d = roundDevice();
  d.computeUnits = 0;
  d.memoryBandwidth = 1ULL << 62;
  d.gemmEfficiency = 0.5, d.attentionForward = 0.25, d.attentionBackward = 0.2;
  d.layerOverhead = 20'000'000;
  const double s = 2048, h = 1024, f = 4096;
  const double gemm = 2 * s * (4 * h * h + 2 * h * f) / 50e12, flash = 4 * s * s * h / 2;
  for (const char* recomputation : {"full", "none"}) {
    CAPTURE(recomputation);
    ModelSpec m = shape(std::string("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, sequence: 2048, "
                                    "gated_ffn: false, recomputation: ") + recomputation);
    const bool full = std::string(recomputation) == "full";
    for (const LayerCompute& l : layerCompute(m, d, {})) {
      const double time = toSeconds(l.forward.total() + l.backward.total() + l.recompute.total());
      CHECK(l.classes.total() == doctest::Approx(time).epsilon(1e-9));
      CHECK(l.classes.other == 0);
    }
    const ClassSeconds block = layerCompute(m, d, {})[1].classes;
    CHECK(block.gemm == doctest::Approx((full ? 4 : 3) * gemm).epsilon(1e-9));
    CHECK(block.attention == doctest::Approx((full ? 2 : 1) * flash / 25e12 + 2.5 * flash / 20e12).epsilon(1e-9));
    CHECK(block.overhead == doctest::Approx((full ? 3 : 2) * 20e-6));
  }
  // Standard attention: its products are GEMMs and its softmax is memory-bound.
  d.memoryBandwidth = 1'000'000'000'000ULL;
  const ClassSeconds standard = layerCompute(shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, "
                                                   "sequence: 2048, attention: standard, recomputation: none"),
                                             d, {})[1].classes;
  CHECK(standard.attention == 0);
  CHECK(standard.gemm > 3 * gemm);
  CHECK(standard.memory > 0);
  // A model timed by a flat utilization says nothing of its kernels.
  ModelSpec flat = shape("layers: 2, hidden: 1024, heads: 8, ffn: 4096, vocabulary: 1, sequence: 2048");
  flat.utilization = 0.5;
  flat.flopsPerSample = flat.transformer->flopsPerSample();
  const ClassSeconds byShare = layerCompute(flat, d, {})[1].classes;
  CHECK(byShare.gemm == 0);
  CHECK(byShare.other > 0);
}
