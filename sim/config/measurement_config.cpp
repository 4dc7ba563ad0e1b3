#include "sim/config/measurement_config.h"

#include <filesystem>
#include <vector>

#include "sim/config/config_node.h"
#include "sim/core/text_list.h"

namespace collsim {

namespace {

struct FigureKey {
  const char* key;
  Measurement::Figure figure;
};
constexpr FigureKey kFigures[] = {{"step_time", Measurement::Figure::StepTime},
                                  {"tokens_per_second", Measurement::Figure::TokensPerSecond},
                                  {"samples_per_second", Measurement::Figure::SamplesPerSecond},
                                  {"tflops_per_device", Measurement::Figure::TflopsPerDevice},
                                  {"mfu", Measurement::Figure::Mfu}};

double positive(const ConfigNode& n, double v, const char* what) {
  if (!(v > 0 && v < 1e30)) n.fail(std::string("expected ") + what + ", above 0");
  return v;
}

} // namespace

Measurement loadMeasurement(const ConfigNode& node, const TrainingSpec& training, const DeviceModel& device,
                            const std::string& baseDir) {
  if (!node.isMap()) node.fail("expected a measured figure, e.g. {step_time: 3.5s} or {mfu: 0.42, flops: model}");
  node.allowDeclared(InputKind::Scenario, "measured");
  std::vector<std::string> keys;
  std::optional<ConfigNode> given;
  Measurement m;
  for (const FigureKey& f : kFigures) {
    keys.push_back(f.key);
    if (auto v = node.find(f.key)) {
      if (given) v->fail("give one measured figure; '" + given->path() + "' is given already");
      given = v, m.figure = f.figure;
    }
  }
  if (auto p = node.find("profile")) {
    std::filesystem::path path = p->text();
    if (path.is_relative()) path = std::filesystem::path(baseDir) / path;
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error)) p->fail("no profile '" + path.string() + "'");
    m.profile = path.string();
    if (!given) given = p, m.figure = Measurement::Figure::Profile;
  }
  if (auto d = node.find("device")) {
    if (m.profile.empty()) d->fail("device says which device of a profile (profile: FILE)");
    m.profileDevice = int(d->integer(0, 1 << 20));
  }
  if (!given) node.fail("no measured figure (one of: " + joinNames(keys) + ", or a profile)");
  const ConfigNode& v = *given;
  switch (m.figure) {
  case Measurement::Figure::StepTime:
    m.value = toSeconds(v.time());
    positive(v, m.value, "the step's time");
    break;
  case Measurement::Figure::TokensPerSecond:
  case Measurement::Figure::SamplesPerSecond: m.value = positive(v, v.count(), "a rate over all devices"); break;
  case Measurement::Figure::TflopsPerDevice: m.value = positive(v, v.number(), "TFLOP/s per device"); break;
  case Measurement::Figure::Mfu:
    m.value = v.number();
    if (!(m.value > 0 && m.value <= 1)) v.fail("mfu is a share of the peak, in (0, 1] (41.5 % is 0.415)");
    break;
  case Measurement::Figure::Profile: break;
  }
  const bool counted = m.figure == Measurement::Figure::TflopsPerDevice || m.figure == Measurement::Figure::Mfu;
  if (auto f = node.find("flops")) {
    if (!counted) f->fail("flops says how tflops_per_device or mfu counted FLOPs; " + v.path() + " needs none");
    std::string c = f->choice({"model", "hardware", "causal", "6n"});
    m.flops = c == "model" ? FlopCount::Model : c == "hardware" ? FlopCount::Hardware : c == "causal" ? FlopCount::Causal
                                                                                               : FlopCount::SixN;
  } else if (counted) {
    v.fail("say how the FLOPs were counted: flops: model (Megatron-LM's and PaLM's MFU), hardware (with "
           "recomputation), causal (attention halved) or 6n");
  }
  if (auto p = node.find("peak")) {
    if (m.figure != Measurement::Figure::Mfu) p->fail("peak is the FLOP/s an mfu is a share of");
    m.peak = positive(*p, p->flops(), "the device's peak FLOP/s");
  }
  if (auto s = node.find("source")) m.source = s->text();
  // What the conversion will need, located here rather than after the run.
  const ModelSpec& model = training.model;
  if (m.figure == Measurement::Figure::TokensPerSecond && !model.transformer)
    v.fail("tokens need a model with a sequence (transformer: {...}); give samples_per_second");
  if (counted) {
    try {
      flopsPerSample(model, m.flops);
    } catch (const InputError& e) {
      v.fail(e.what());
    }
  }
  if (m.figure == Measurement::Figure::Mfu && m.peak == 0 && !(device.flops > 0))
    v.fail("an mfu needs the device's peak: set device.flops, or measured.peak");
  return m;
}

} // namespace collsim
