// What a user measured of a training run (a scenario's or a variant's
// `measured:`), in the figure the run's log or paper gives, turned into the
// one figure collsim predicts: the optimizer step's time.
//
//   measured: {step_time: 3.53s}
//   measured: {tokens_per_second: 1.4M}          # or samples_per_second, over all devices
//   measured: {tflops_per_device: 150, flops: model}
//   measured: {mfu: 0.415, flops: model}         # of the device's peak; peak: 312TFLOPS to state another
//   measured: {profile: trace.json, device: 0}   # a profiler's trace (sim/validation/profile.h): its
//                                                # mean step, and where the step went by kind of kernel
//
// Throughput figures count FLOPs one of four ways (`flops:`, required with
// tflops_per_device and mfu, since the same run is 41 % or 55 % by another):
//   model     3 x the forward's FLOPs: 2 x the parameters a token uses x its
//             tokens, attention's scores and mix 4 s^2 h per block in full,
//             and the head (Megatron-LM's and PaLM's MFU, llm-foundry's;
//             transformer_shape.h)
//   hardware  model, plus what recomputation runs again: every block's
//             forward under full, the attention core under selective
//             without flash attention (Narayanan et al. 2021's "teraFLOP/s
//             per GPU" count the recomputed forward)
//   causal    model with attention's 4 s^2 h halved, as a causal kernel
//             computes it (FlashAttention's count)
//   6n        6 x the parameters a token uses x tokens, attention not counted
//             (Kaplan et al.'s C = 6 N D)
#pragma once

#include <string>

#include "sim/workload/model.h"

namespace collsim {

struct StepResult;

enum class FlopCount { Model, Hardware, Causal, SixN };
const char* flopCountName(FlopCount c); // "model", ...

struct Measurement {
  enum class Figure { StepTime, TokensPerSecond, SamplesPerSecond, TflopsPerDevice, Mfu, Profile };
  Figure figure = Figure::StepTime;
  double value = 0; // seconds, per second over all devices, TFLOP/s per device, or a share
  FlopCount flops = FlopCount::Model;
  double peak = 0; // mfu: FLOP/s per device; 0: the device's peak
  std::string source; // where the figure comes from (free text)
  // A profile of the run (with a figure, or alone: Figure::Profile, whose
  // step is the profile's), and which of its devices (-1: the lowest).
  std::string profile;
  int profileDevice = -1;

  std::string text() const; // as given: "mfu 41.5 % (model FLOPs)"
};

const char* figureKey(Measurement::Figure f); // "step_time", "mfu", ...

// The FLOPs of one sample under a count (a model given by hand has only
// `model`: its flopsPerSample). Throws InputError when the model lacks
// what the count needs (a transformer shape, FLOPs).
double flopsPerSample(const ModelSpec& model, FlopCount count);

// The measured step's seconds, for the run `step` simulated: its batch and
// devices, and the model's FLOPs under the measurement's count. A profile
// alone is read where profiles are (sim/validation/profile.h): InputError.
double measuredStepSeconds(const Measurement& m, const StepResult& step, const ModelSpec& model);

} // namespace collsim
