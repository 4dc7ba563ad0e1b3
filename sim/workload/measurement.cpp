#include "sim/workload/measurement.h"

#include <cstdio>

#include "sim/workload/step_simulation.h"

namespace collsim {

const char* flopCountName(FlopCount c) {
  switch (c) {
  case FlopCount::Model: return "model";
  case FlopCount::Hardware: return "hardware";
  case FlopCount::Causal: return "causal";
  case FlopCount::SixN: return "6n";
  }
  return "?";
}

const char* figureKey(Measurement::Figure f) {
  switch (f) {
  case Measurement::Figure::StepTime: return "step_time";
  case Measurement::Figure::TokensPerSecond: return "tokens_per_second";
  case Measurement::Figure::SamplesPerSecond: return "samples_per_second";
  case Measurement::Figure::TflopsPerDevice: return "tflops_per_device";
  case Measurement::Figure::Mfu: return "mfu";
  case Measurement::Figure::Profile: return "profile";
  }
  return "?";
}

std::string Measurement::text() const {
  char b[96];
  switch (figure) {
  case Figure::StepTime:
    if (value < 1) std::snprintf(b, sizeof b, "step %.4g ms", value * 1e3);
    else std::snprintf(b, sizeof b, "step %.4g s", value);
    break;
  case Figure::TokensPerSecond: std::snprintf(b, sizeof b, "%.4g tokens/s", value); break;
  case Figure::SamplesPerSecond: std::snprintf(b, sizeof b, "%.4g samples/s", value); break;
  case Figure::TflopsPerDevice: std::snprintf(b, sizeof b, "%.4g TFLOP/s (%s)", value, flopCountName(flops)); break;
  case Figure::Mfu: std::snprintf(b, sizeof b, "mfu %.1f%% (%s)", 100 * value, flopCountName(flops)); break;
  case Figure::Profile: return "profile " + profile.substr(profile.find_last_of('/') + 1);
  }
  return profile.empty() ? std::string(b) : std::string(b) + " + profile";
}

double flopsPerSample(const ModelSpec& m, FlopCount count) {
  if (m.flopsPerSample <= 0) throw InputError(m.name + " gives its times, not its FLOPs: measure its step_time");
  const TransformerShape* t = m.transformer ? &*m.transformer : nullptr;
  if (count != FlopCount::Model && !t)
    throw InputError(std::string("flops: ") + flopCountName(count) + " counts a transformer's parts; " + m.name +
                     " is counted by hand (flops: model)");
  const double model = 3 * m.flopsPerSample;
  if (count == FlopCount::Model) return model;
  const double s = double(t->sequence), h = double(t->hidden), layers = double(t->layers);
  const double core = 4 * s * s * h; // one block's scores and mix, forward
  switch (count) {
  case FlopCount::Hardware:
    if (t->recomputation == Recomputation::Full) return model + layers * t->blockFlopsPerSample();
    if (t->recomputation == Recomputation::Selective && !t->flashAttention) return model + layers * core;
    return model;
  case FlopCount::Causal: return model - 3 * layers * core / 2;
  case FlopCount::SixN: return 6 * double(t->activeParameters()) * s;
  case FlopCount::Model: break;
  }
  return model;
}

double measuredStepSeconds(const Measurement& m, const StepResult& step, const ModelSpec& model) {
  const double samples = double(step.microBatch) * step.accumulation * (step.replicas ? step.replicas : step.ranks);
  const double devices = step.ranks;
  switch (m.figure) {
  case Measurement::Figure::StepTime: return m.value;
  case Measurement::Figure::SamplesPerSecond: return samples / m.value;
  case Measurement::Figure::TokensPerSecond:
    if (!model.transformer) throw InputError("tokens_per_second needs a model with a sequence (transformer: {...})");
    return samples * double(model.transformer->sequence) / m.value;
  case Measurement::Figure::TflopsPerDevice:
    return samples * flopsPerSample(model, m.flops) / (m.value * 1e12 * devices);
  case Measurement::Figure::Mfu: {
    const double peak = m.peak > 0 ? m.peak : step.devicePeakFlops;
    if (!(peak > 0)) throw InputError("mfu needs the device's peak (device.flops, or measured.peak)");
    return samples * flopsPerSample(model, m.flops) / (m.value * peak * devices);
  }
  case Measurement::Figure::Profile: throw InputError("a profile's step is the profile's: read it first");
  }
  return m.value;
}

} // namespace collsim
