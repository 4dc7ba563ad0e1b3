#include "sim/report/training_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/statistics.h"
#include "sim/report/flat_csv.h"
#include "sim/report/network_report.h"
#include "sim/report/text_table.h"
#include "sim/workload/reference_figures.h"

namespace collsim {
namespace {

std::string ms(Time t) { return fixed(toMicroseconds(t) / 1e3, 3); }
std::string gib(Bytes b) { return fixed(double(b) / double(1ULL << 30), 2); }

bool agrees(double published, double simulated, double tolerance) {
  return std::abs(simulated - published) <= tolerance * std::abs(published);
}

// Swept keys that the step table shows in columns of its own anyway.
bool shownAnyway(const std::string& key) {
  return key == "training.bucket" || key == "training.accumulation" || key == "training.pipeline" ||
         key == "training.overlap" || key == "cluster.servers";
}

// What tells the points apart: the variant, the swept keys, the algorithm.
std::vector<std::string> labelHeaders(const TrainingReport& r) {
  std::vector<std::string> h;
  if (!r.points.empty() && !r.points.front().variant.empty()) h.push_back("variant");
  if (!r.points.empty())
    for (const auto& [key, value] : r.points.front().sweepValues)
      if (!shownAnyway(key)) h.push_back(key);
  h.push_back("algo");
  return h;
}
std::vector<std::string> labels(const TrainingPoint& p) {
  std::vector<std::string> l;
  if (!p.variant.empty()) l.push_back(p.variant);
  for (const auto& [key, value] : p.sweepValues)
    if (!shownAnyway(key)) l.push_back(value);
  l.push_back(p.algorithm);
  return l;
}

// A failed point's row: its labels, then a dash in every figure column.
std::vector<std::string> failedRow(const TrainingPoint& p, std::size_t columns) {
  std::vector<std::string> row = labels(p);
  row.resize(columns - 1, "-");
  row.push_back("FAILED");
  return row;
}

// Whether the point's memory fits its device: "yes", "NO", or "?" when the
// cluster names no device memory.
std::string fitsText(const StepResult& s) {
  return s.deviceMemory == 0 ? "?" : s.memory.total() <= s.deviceMemory ? "yes" : "NO";
}

// The device's memory left over (negative: what is missing); "-" when unknown.
std::string headroomText(const StepResult& s) {
  return s.deviceMemory == 0 ? "-" : fixed((double(s.deviceMemory) - double(s.memory.total())) / double(1ULL << 30), 2);
}

// Samples per optimizer step over all devices.
std::uint64_t globalBatch(const StepResult& s) {
  return std::uint64_t(s.microBatch) * std::uint64_t(s.accumulation) * std::uint64_t(s.replicas ? s.replicas : s.ranks);
}

std::size_t pointsNotFitting(const TrainingReport& r) {
  std::size_t n = 0;
  for (const auto& p : r.points) n += !p.failed() && fitsText(p.step) == "NO";
  return n;
}

bool anyLayout(const TrainingReport& r) {
  for (const auto& p : r.points)
    if (!p.failed() && p.step.layout) return true;
  return false;
}

std::string layoutText(const StepResult& s) { return s.layout ? s.layout->text() : "-"; }

TextTable stepTable(const TrainingReport& r) {
  std::vector<std::string> h = labelHeaders(r);
  const bool layouts = anyLayout(r);
  if (layouts) h.push_back("layout");
  for (const char* c : {"servers", "devices", "bucket", "accum", "global_batch", "pipeline", "overlap", "buckets",
                        "step_ms", "compute_ms", "comm_ms", "exposed_ms", "comm_share", "bucket_ms", "samples/s",
                        "tokens/s", "mfu", "scaling", "memory_GiB", "headroom_GiB", "fits"})
    h.push_back(c);
  const bool anyFailed = r.failedPoints() > 0;
  if (anyFailed) h.push_back("status");
  TextTable t(h);
  for (const auto& p : r.points) {
    if (p.failed()) {
      t.add(failedRow(p, h.size()));
      continue;
    }
    const StepResult& s = p.step;
    std::vector<std::string> row = labels(p);
    if (layouts) row.push_back(layoutText(s));
    // Under tensor or pipeline parallelism buckets differ per stage: no per-bucket figures.
    const bool perBucket = !s.layout || !s.buckets.empty();
    for (std::string c : {std::to_string(p.servers), std::to_string(p.devices), formatBytes(p.bucket), std::to_string(p.accumulation),
                          std::to_string(globalBatch(s)), std::to_string(p.pipeline), std::string(p.overlap ? "on" : "off"),
                          perBucket ? std::to_string(s.buckets.size()) : "-", ms(s.iteration), ms(s.compute),
                          ms(s.communication), ms(s.exposed), percent(s.communicationShare()),
                          perBucket ? ms(s.meanAllReduce()) : "-",
                          fixed(s.samplesPerSecond(), 1), s.tokensPerSample ? fixed(s.tokensPerSecond(), 0) : "-",
                          s.mfu() > 0 ? percent(s.mfu()) : "-", percent(s.scalingEfficiency()), gib(s.memory.total()),
                          headroomText(s), fitsText(s)})
      row.push_back(std::move(c));
    if (anyFailed) row.push_back("ok");
    t.add(std::move(row));
  }
  return t;
}

bool anyContextParallel(const TrainingReport& r) {
  for (const auto& p : r.points)
    if (!p.failed() && p.step.layout && p.step.layout->cp > 1) return true;
  return false;
}

// Where the slowest device's step went, under parallel layouts (cp_ms
// when some point has context parallelism).
TextTable breakdownTable(const TrainingReport& r) {
  std::vector<std::string> h = labelHeaders(r);
  const bool cp = anyContextParallel(r);
  for (const char* c : {"layout", "step_ms", "compute_ms", "tp_ms", "ep_ms", "pp_ms", "bubble_ms", "dp_ms", "optimizer_ms"})
    h.push_back(c);
  if (cp) h.push_back("cp_ms");
  TextTable t(h);
  for (const auto& p : r.points) {
    if (p.failed() || !p.step.layout) continue;
    const StepBreakdown& b = p.step.breakdown;
    std::vector<std::string> row = labels(p);
    row.push_back(layoutText(p.step));
    for (Time x : {p.step.iteration, b.compute, b.tensorParallel, b.expertParallel, b.pipeline, b.bubble, b.dataParallel,
                   b.optimizer})
      row.push_back(ms(x));
    if (cp) row.push_back(ms(b.contextParallel));
    t.add(std::move(row));
  }
  return t;
}

TextTable memoryTable(const TrainingReport& r) {
  std::vector<std::string> h = labelHeaders(r);
  for (const char* c : {"weights", "master", "gradients", "optimizer", "accum_buffer", "activations", "buckets",
                        "comm_buffers", "total_GiB", "fits"})
    h.push_back(c);
  TextTable t(h);
  for (const auto& p : r.points) {
    if (p.failed()) continue;
    const MemoryBreakdown& m = p.step.memory;
    std::vector<std::string> row = labels(p);
    for (Bytes b : {m.weights, m.masterWeights, m.gradients, m.optimizerState, m.accumulationBuffer, m.activations,
                    m.bucketBuffers, m.communicatorBuffers, m.total()})
      row.push_back(gib(b));
    row.back() = gib(m.total());
    row.push_back(fitsText(p.step));
    t.add(std::move(row));
  }
  return t;
}

bool hasMeasured(const TrainingReport& r) {
  for (const auto& p : r.points)
    if (p.measured && !p.failed()) return true;
  return false;
}

// Each measured run's step beside the prediction.
TextTable measuredTable(const TrainingReport& r) {
  std::vector<std::string> h = labelHeaders(r);
  for (const char* c : {"measured", "measured_ms", "predicted_ms", "error"}) h.push_back(c);
  TextTable t(h);
  for (const auto& p : r.points) {
    if (!p.measured || p.failed()) continue;
    std::vector<std::string> row = labels(p);
    row.push_back(p.measured->text());
    row.push_back(fixed(p.measuredStep * 1e3, 3));
    row.push_back(ms(p.step.iteration));
    row.push_back(percent(p.measuredError()));
    t.add(std::move(row));
  }
  return t;
}

bool hasReference(const TrainingReport& r) {
  for (const auto& p : r.points)
    if (!p.reference.empty()) return true;
  return false;
}

TextTable referenceTable(const TrainingReport& r) {
  TextTable t({"figure", "variant", "published", "simulated", "sim/pub", "agrees"});
  for (const auto& f : referenceFigures()) {
    for (const auto& p : r.points) {
      auto it = p.reference.find(f.key);
      if (it == p.reference.end() || p.failed()) continue;
      double sim = f.of(p.step);
      bool ok = agrees(it->second, sim, p.referenceInfo.tolerance);
      t.add({f.key, p.variant, fixed(it->second, 3), fixed(sim, 3), fixed(sim / it->second, 2), ok ? "yes" : "no"});
    }
  }
  return t;
}

// The study's explanation of each figure that disagrees somewhere.
std::string referenceNotes(const TrainingReport& r, bool md) {
  std::string out;
  const ReferenceInfo& info = r.points.front().referenceInfo;
  for (const auto& f : referenceFigures()) {
    auto note = info.notes.find(f.key);
    if (note == info.notes.end()) continue;
    bool differs = false;
    for (const auto& p : r.points)
      if (auto it = p.reference.find(f.key); it != p.reference.end() && !p.failed())
        differs |= !agrees(it->second, f.of(p.step), info.tolerance);
    if (differs) out += (md ? "- **" + std::string(f.key) + "** (" + f.label + "): " : "# " + std::string(f.key) + ": ") +
                        note->second + "\n";
  }
  return out.empty() ? out : (md ? "\nWhy they differ:\n\n" : "# why they differ:\n") + out;
}

std::string header(const TrainingReport& r) {
  std::ostringstream os;
  os << "# collsim " << r.command << ": " << r.name << " (training step)\n";
  if (!r.description.empty()) os << "# " << r.description << "\n";
  if (!r.points.empty()) {
    const TrainingPoint& p = r.points.front();
    os << "# model: " << p.model << ", " << fixed(double(p.parameters) / 1e6, 1) << " M parameters, micro-batch "
       << p.microBatch << "; cluster: " << p.cluster << "\n";
  }
  os << "# step = one optimizer step (accum micro-batches per replica; global_batch samples over all devices);\n"
        "# comm = time some gradient bucket's collective ran; exposed = step - compute; bucket_ms = the mean time of\n"
        "# ONE bucket's AllReduce (the other times are per step); samples/s over all devices; scaling = compute /\n"
        "# step (one device: 100%); mfu = 3 x forward FLOPs per sample x samples/s over the devices' peak (- when\n"
        "# the model gives times); tokens/s = samples/s x sequence (- without a transformer shape);\n"
        "# headroom = device memory - memory_GiB. bucket is the framework's gradient bucket (PyTorch DDP\n"
        "# bucket_cap_mb), not an HCCL setting.\n"
        "# Modelled: each layer's compute, every collective and pipeline transfer on the simulated links (so\n"
        "# they contend), the schedules that order them, compute slowed by the SMs a library's collectives hold\n"
        "# (NCCL), what the framework runs beside the compute (training.overlap). Not modelled: the framework's\n"
        "# launch costs (but a device's layer_overhead), MoE activations beyond a dense block's.\n";
  return os.str();
}

// Which points simulated a few devices for all (replica_symmetry.h), and
// how many of their devices ran: a line each, once for the points a sweep
// repeats it for (buckets, accumulation).
std::string symmetryNotes(const TrainingReport& r, bool md) {
  std::string out;
  std::set<std::string> said;
  for (const auto& p : r.points) {
    const StepResult& s = p.step;
    if (p.failed() || s.simulatedRanks == 0 || s.simulatedRanks == s.ranks) continue;
    std::string label;
    for (const auto& l : labels(p)) label += (label.empty() ? "" : " ") + l;
    std::string line = (md ? "- " : "#   ") + label + ": " + std::to_string(s.simulatedRanks) + " of " +
                       std::to_string(s.ranks) + " devices simulated, " + s.symmetry + "\n";
    if (said.insert(line).second) out += line;
  }
  if (out.empty()) return out;
  return (md ? "\nAlike devices simulated once, exactly (`simulation.symmetry: off` runs them all):\n\n"
             : "# alike devices simulated once, exactly (simulation.symmetry: off runs them all):\n") +
         out;
}

std::string text(const TrainingReport& r, bool md) {
  std::string out = header(r);
  auto emit = [&](const char* title, const TextTable& t) {
    out += md ? std::string("\n### ") + title + "\n\n" + t.markdown() : std::string("\n# ") + title + "\n" + t.text();
  };
  emit("step time", stepTable(r));
  if (std::size_t n = pointsNotFitting(r))
    out += (md ? "\n" : "# ") + std::to_string(n) +
           " point(s) do not fit in their device's memory (fits: NO; the memory table below): their step times are "
           "what the step would take if they did.\n";
  if (std::size_t failed = r.failedPoints()) {
    out += md ? "\n" + std::to_string(failed) + " point(s) failed:\n\n" : "# " + std::to_string(failed) + " point(s) failed:\n";
    for (const auto& p : r.points) {
      if (!p.failed()) continue;
      std::string label;
      for (const auto& l : labels(p)) label += (label.empty() ? "" : " ") + l;
      out += (md ? "- " : "#   ") + label + ": " + p.error + "\n";
    }
  }
  if (anyLayout(r)) {
    emit("where the step went (the device that finished last)", breakdownTable(r));
    out += md ? "\nCompute is the device's own; tp, ep, pp and dp are the time it waited in TP collectives, in "
                "EP AllToAlls, for pipeline transfers and for data-parallel gradients and ZeRO's AllGathers; bubble, "
                "idle until a neighbour stage got there. They add up to the step.\n"
              : "# compute: the device's own; tp / ep / pp / dp: the time it waited in TP collectives, in EP\n"
                "# AllToAlls, for pipeline transfers, for data-parallel gradients and ZeRO's AllGathers; bubble:\n"
                "# idle until a neighbour stage got there. They add up to the step.\n";
    if (anyContextParallel(r))
      out += md ? "cp is the time it waited for the key-value blocks of its context-parallel ring.\n"
                : "# cp: the time it waited for the key-value blocks of its context-parallel ring.\n";
  }
  out += symmetryNotes(r, md);
  emit("memory per device (GiB)", memoryTable(r));
  if (hasMeasured(r)) {
    emit("measured vs predicted: the step's time (error = predicted / measured - 1)", measuredTable(r));
    std::vector<double> errors;
    for (const auto& p : r.points)
      if (p.measured && !p.failed()) errors.push_back(std::abs(p.measuredError()));
    out += (md ? "\n" : "# ") + std::string("median |error| ") + percent(median(errors)) + ", max " +
           percent(*std::max_element(errors.begin(), errors.end())) + " over " + std::to_string(errors.size()) +
           " measured run(s)\n";
  }
  if (hasReference(r)) {
    const ReferenceInfo& info = r.points.front().referenceInfo;
    std::string title = "published vs simulated" + (info.source.empty() ? "" : " (" + info.source + ")") +
                        ", agreeing within " + fixed(100 * info.tolerance, 0) + "%";
    emit(title.c_str(), referenceTable(r));
    out += referenceNotes(r, md);
  }
  return out;
}

double us(Time t) { return toMicroseconds(t); }

nlohmann::json pointJson(const TrainingPoint& p) {
  if (p.failed()) {
    nlohmann::json sweep = nlohmann::json::object();
    for (const auto& [key, value] : p.sweepValues) sweep[key] = value;
    return {{"variant", p.variant}, {"sweep", sweep}, {"algorithm", p.algorithm}, {"status", p.status}, {"error", p.error}};
  }
  const StepResult& s = p.step;
  const MemoryBreakdown& m = s.memory;
  nlohmann::json sweep = nlohmann::json::object();
  for (const auto& [key, value] : p.sweepValues) sweep[key] = value;
  nlohmann::json buckets = nlohmann::json::array();
  for (const auto& b : s.buckets)
    buckets.push_back({{"bytes", b.bytes}, {"algorithm", b.algorithm}, {"ready_us", us(b.ready)},
                       {"start_us", us(b.start)}, {"end_us", us(b.end)}});
  nlohmann::json j = {
      {"variant", p.variant}, {"sweep", sweep}, {"algorithm", p.algorithm}, {"status", p.status}, {"cluster", p.cluster},
      {"servers", p.servers}, {"devices", p.devices}, {"model", p.model}, {"parameters", p.parameters},
      {"micro_batch", p.microBatch}, {"bucket_bytes", p.bucket}, {"accumulation", p.accumulation},
      {"pipeline", p.pipeline}, {"overlap", p.overlap}, {"framework", frameworkName(p.framework)},
      {"overlaps", {{"grad_reduce", p.overlap}, {"param_gather", p.paramGatherOverlap}, {"tp_comm", p.tpCommOverlap},
                    {"tp_wgrad", p.tpWgradOverlap}}},
      {"step_us", us(s.iteration)}, {"forward_us", us(s.forward)},
      {"backward_us", us(s.backward)}, {"optimizer_us", us(s.optimizer)}, {"compute_us", us(s.compute)},
      {"communication_us", us(s.communication)}, {"exposed_communication_us", us(s.exposed)},
      {"communication_share", s.communicationShare()}, {"exposed_share", s.exposedShare()},
      {"mean_allreduce_us", us(s.meanAllReduce())}, {"samples_per_s", s.samplesPerSecond()},
      {"scaling_efficiency", s.scalingEfficiency()}, {"bytes_sent", s.bytesSent}, {"events", s.events},
      {"tokens_per_s", s.tokensPerSample ? nlohmann::json(s.tokensPerSecond()) : nlohmann::json(nullptr)},
      {"mfu", s.mfu() > 0 ? nlohmann::json(s.mfu()) : nlohmann::json(nullptr)},
      {"memory_bytes",
       {{"weights", m.weights}, {"master_weights", m.masterWeights}, {"gradients", m.gradients},
        {"optimizer_state", m.optimizerState}, {"accumulation_buffer", m.accumulationBuffer},
        {"activations", m.activations}, {"bucket_buffers", m.bucketBuffers},
        {"communicator_buffers", m.communicatorBuffers}, {"total", m.total()}, {"device", s.deviceMemory}}},
      {"fits", s.deviceMemory == 0 ? nlohmann::json(nullptr) : nlohmann::json(s.memory.total() <= s.deviceMemory)},
      {"global_batch", globalBatch(s)},
      {"network", networkJson(s.network)},
      {"buckets", buckets}};
  if (s.layout) {
    const ParallelLayout& l = *s.layout;
    const StepBreakdown& b = s.breakdown;
    j["layout"] = {{"tp", l.tp}, {"cp", l.cp}, {"pp", l.pp}, {"dp", l.dp}, {"ep", l.ep}, {"expert_imbalance", l.expertImbalance},
                   {"zero", l.zero}, {"micro_batches", l.microBatches},
                   {"schedule", pipelineKindName(l.schedule)}, {"virtual_stages", l.virtualStages},
                   {"sequence_parallel", l.sequenceParallel}};
    j["breakdown_us"] = {{"compute", us(b.compute)}, {"tensor_parallel", us(b.tensorParallel)},
                         {"expert_parallel", us(b.expertParallel)},
                         {"pipeline", us(b.pipeline)}, {"bubble", us(b.bubble)}, {"data_parallel", us(b.dataParallel)},
                         {"optimizer", us(b.optimizer)}, {"context_parallel", us(b.contextParallel)}};
  }
  j["simulated_devices"] = s.simulatedRanks;
  j["symmetry"] = s.symmetry;
  if (p.measured) {
    const Measurement& m = *p.measured;
    nlohmann::json measured = {{"figure", figureKey(m.figure)}, {"value", m.value}};
    if (m.figure == Measurement::Figure::TflopsPerDevice || m.figure == Measurement::Figure::Mfu)
      measured["flops"] = flopCountName(m.flops);
    if (m.peak > 0) measured["peak_flops"] = m.peak;
    if (!m.source.empty()) measured["source"] = m.source;
    measured["step_us"] = p.measuredStep * 1e6;
    measured["error"] = p.measuredError();
    j["measured"] = measured;
  }
  if (!p.reference.empty()) {
    nlohmann::json ref = nlohmann::json::object();
    for (const auto& [key, published] : p.reference) {
      double sim = findReferenceFigure(key)->of(s);
      ref[key] = {{"published", published}, {"simulated", sim},
                  {"agrees", agrees(published, sim, p.referenceInfo.tolerance)}};
      if (auto n = p.referenceInfo.notes.find(key); n != p.referenceInfo.notes.end()) ref[key]["note"] = n->second;
    }
    j["reference"] = ref;
  }
  return j;
}

std::string json(const TrainingReport& r) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto& p : r.points) points.push_back(pointJson(p));
  nlohmann::json doc = {{"tool", "collsim"}, {"command", r.command}, {"kind", "training"}, {"name", r.name},
                        {"description", r.description}, {"seed", r.seed}, {"failed_points", r.failedPoints()},
                        {"points", points}};
  if (!r.points.empty() && !r.points.front().referenceInfo.source.empty())
    doc["reference_source"] = r.points.front().referenceInfo.source;
  return doc.dump(2) + "\n";
}

// Every scalar figure of the JSON, one column each.
std::string csv(const TrainingReport& r) {
  std::vector<nlohmann::json> rows;
  for (const auto& p : r.points) {
    nlohmann::json j = pointJson(p), flat = nlohmann::json::object();
    for (auto& [k, v] : j["sweep"].items()) flat["sweep." + k] = v;
    for (auto& [k, v] : j["memory_bytes"].items()) flat["memory." + k] = v;
    for (auto& [k, v] : j.items())
      if (!v.is_structured()) flat[k] = v;
    if (j.contains("measured")) {
      flat["measured.step_us"] = j["measured"]["step_us"];
      flat["measured.error"] = j["measured"]["error"];
    }
    if (j.contains("reference"))
      for (auto& [k, v] : j["reference"].items()) {
        flat["published." + k] = v["published"];
        flat["simulated." + k] = v["simulated"];
      }
    rows.push_back(std::move(flat));
  }
  return flatRowsCsv(rows);
}

} // namespace

std::size_t TrainingReport::failedPoints() const {
  return std::size_t(std::count_if(points.begin(), points.end(), [](const TrainingPoint& p) { return p.failed(); }));
}

std::string formatTrainingReport(const TrainingReport& report, OutputFormat format) {
  switch (format) {
  case OutputFormat::Json: return json(report);
  case OutputFormat::Csv: return csv(report);
  case OutputFormat::Markdown: return text(report, true);
  case OutputFormat::Table: return text(report, false);
  case OutputFormat::Dot:
  case OutputFormat::Junit: break; // not a row format (common_options.h refuses it)
  }
  throw std::logic_error(std::string("a training report has no ") + outputFormatName(format) + " form");
}

} // namespace collsim
