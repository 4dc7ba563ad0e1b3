#include "sim/config/device_presets.h"

namespace collsim {
namespace {

constexpr double kTera = 1e12;
constexpr Bandwidth kGBps = 1'000'000'000ULL;

struct Figures {
  double tflops;             // dense 16-bit tensor peak
  double memoryTBps;         // HBM peak
  double memoryGiB;          // capacity (GB on the datasheet, taken as GiB, as the tools report it)
  int units;                 // tiles computed at once: SMs (NVIDIA), AI cores (Ascend)
  double gemm;               // best large GEMM / peak
  double attentionForward;   // fused attention, causal, head size 128 / peak
  double attentionBackward;
  double memoryEfficiency;   // elementwise kernels / HBM peak
  double reduceGBps;         // the collectives' reduction rate (0: free, as NCCL's kernels hide it)
};

// How much faster the device's own (best) attention kernel runs than an
// older one, forward and backward, as a paper measured the two side by side.
struct KernelRatio {
  const char* name;
  double forward, backward;
};

// The device's own kernel, named, and the older ones at their ratios to it.
struct Kernels {
  const char* own = nullptr;
  std::vector<KernelRatio> older;
};

DeviceModel make(const char* name, const Figures& f, const Kernels& kernels = {}) {
  DeviceModel d;
  d.name = name;
  d.flops = f.tflops * kTera;
  d.memoryBandwidth = Bandwidth(f.memoryTBps * 1000 * double(kGBps));
  d.memory = Bytes(f.memoryGiB * double(1ULL << 30));
  d.computeUnits = f.units;
  d.gemmEfficiency = f.gemm;
  d.attentionForward = f.attentionForward;
  d.attentionBackward = f.attentionBackward;
  d.memoryEfficiency = f.memoryEfficiency;
  d.reduceBandwidth = Bandwidth(f.reduceGBps * double(kGBps));
  if (kernels.own) {
    d.attentionKernel = kernels.own;
    d.attentionKernels.push_back({kernels.own, f.attentionForward, f.attentionBackward});
  }
  for (const KernelRatio& k : kernels.older)
    d.attentionKernels.push_back({k.name, f.attentionForward / k.forward, f.attentionBackward / k.backward});
  return d;
}

// Sources, by figure:
// - Peaks, memory and SM counts: NVIDIA's V100, A100 and H100 datasheets and
//   architecture whitepapers (dense, without sparsity: 125, 312, 989 TFLOPS;
//   80, 108, 132 SMs); Ascend 910: Huawei at Hot Chips 31 (2019): 32 Da
//   Vinci cores, 256 TFLOPS fp16, HBM2 at 1.2 TB/s; Ascend 910B: the Atlas
//   800T A2's figures as commonly cited (64 GB HBM2e at 1.6 TB/s, 24 AI
//   cores); its fp16 peak differs by bin (910B1-B4, about 280-400 TFLOPS):
//   320 here, set `flops` to your part's.
// - gemm: the "maximum achievable matmul FLOPS" measured with bf16 inputs
//   (stas00/ml-engineering, compute/accelerator): A100 SXM 267.9 of 312
//   (0.859), H100 SXM 792.1 of 989 (0.801). V100 and Ascend have no such
//   measurement there: 0.8, an assumption in the range of the others.
// - attention: FlashAttention-2 (Dao, 2023) reaches 50-73 % of the A100's
//   peak forward and less backward: 0.65 / 0.55. On H100, FlashAttention-3
//   (Shah et al., 2024) reaches 540-740 TFLOPS forward in bf16 and about
//   1.5-1.75 x FlashAttention-2 backward: 0.6 / 0.5. V100 and Ascend 910 run
//   no FlashAttention-2 (V100 lacks the instructions): 0.5 / 0.4, an
//   assumption; their models should use attention: standard.
// - other attention kernels, for a model that names the one its run used
//   (`attention: flash-1`): FlashAttention-2's paper (section 4.1) measures
//   it on A100 about 2x FlashAttention forward and backward, and 1.3-1.5x
//   FlashAttention in Triton forward and 2x backward: flash-1 at 1/2 and
//   1/2 of flash-2, flash-triton at 1/1.4 and 1/2 (0.325 / 0.275, 0.464 /
//   0.275). On H100, FlashAttention-3's paper measures it 1.5-2.0x
//   FlashAttention-2 forward and 1.5-1.75x backward: flash-2 at 1/1.75 and
//   1/1.625 of flash-3 (0.343 / 0.308; the FlashAttention-2 paper's "up to
//   335 TFLOPs/s" forward and backward on H100, 0.34 of the peak, agrees).
//   The older kernels on H100 keep their A100 ratios to flash-2, the only
//   ones measured: flash-1 at 1/2 and 1/2 (0.171 / 0.154), flash-triton at
//   1/1.4 and 1/2 (0.245 / 0.154).
// - memory efficiency: a copy reaches about 90 % of HBM's peak on these
//   parts (the same repository's and vendors' STREAM-like figures): 0.9.
// - reduce: NCCL's reductions run in the copy kernels (none); HCCL's on
//   Ascend 910 cost about a third of HBM's rate (a sum reads 2n bytes and
//   writes n): 400 GB/s, collsim's long-standing default.
const Kernels kAmpereKernels = {"flash-2", {{"flash-1", 2, 2}, {"flash-triton", 1.4, 2}}};
const Kernels kHopperKernels = {
    "flash-3", {{"flash-2", 1.75, 1.625}, {"flash-1", 1.75 * 2, 1.625 * 2}, {"flash-triton", 1.75 * 1.4, 1.625 * 2}}};

const std::vector<DeviceModel> kPresets = {
    make("ascend-910", {256, 1.2, 32, 32, 0.8, 0.5, 0.4, 0.9, 400}),
    make("ascend-910b", {320, 1.6, 64, 24, 0.8, 0.5, 0.4, 0.9, 0}),
    make("v100-sxm2-32gb", {125, 0.9, 32, 80, 0.8, 0.5, 0.4, 0.9, 0}),
    make("a100-sxm4-40gb", {312, 1.555, 40, 108, 0.859, 0.65, 0.55, 0.9, 0}, kAmpereKernels),
    make("a100-sxm4-80gb", {312, 2.039, 80, 108, 0.859, 0.65, 0.55, 0.9, 0}, kAmpereKernels),
    make("h100-sxm5-80gb", {989, 3.35, 80, 132, 0.801, 0.6, 0.5, 0.9, 0}, kHopperKernels),
};

} // namespace

const std::vector<DeviceModel>& devicePresets() { return kPresets; }

const DeviceModel* findDevicePreset(const std::string& name) {
  for (const DeviceModel& d : kPresets)
    if (name == d.name) return &d;
  return nullptr;
}

std::vector<std::string> devicePresetNames() {
  std::vector<std::string> names;
  for (const DeviceModel& p : devicePresets()) names.push_back(p.name);
  return names;
}

const DeviceModel& defaultDevice() { return kPresets.front(); }

const std::vector<std::string>& attentionKernelNames() {
  static const std::vector<std::string> names = {"flash-1", "flash-2", "flash-3", "flash-triton"};
  return names;
}

} // namespace collsim
