#include "sim/report/plan_report.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/report/flat_csv.h"
#include "sim/report/text_table.h"

namespace collsim {
namespace {

std::string stepMs(Time t) { return fixed(toMicroseconds(t) / 1e3, 1); }
double gibOf(Bytes b) { return double(b) / double(1ULL << 30); }
std::string memoryGib(Bytes b) { return fixed(gibOf(b), 1); }

const char* recomputationName(Recomputation r) {
  return r == Recomputation::None ? "none" : r == Recomputation::Selective ? "selective" : "full";
}

// Columns that only some plans need: those that some layout uses.
struct OptionalColumns {
  bool experts = false, cp = false, recomputation = false, virtualStages = false;
};
OptionalColumns optionalColumns(const PlanReport& r) {
  OptionalColumns o;
  for (const auto* list : {&r.plans, &r.pruned})
    for (const auto& p : *list) {
      const ParallelLayout& l = p.candidate.layout;
      o.experts |= l.ep > 1, o.cp |= l.cp > 1, o.recomputation |= bool(p.candidate.recomputation);
      o.virtualStages |= l.pp > 1 && l.schedule == PipelineKind::Interleaved;
    }
  return o;
}

std::vector<std::string> layoutCells(const PlannedLayout& p, const OptionalColumns& o) {
  const ParallelLayout& l = p.candidate.layout;
  std::vector<std::string> c{std::to_string(p.devices), std::to_string(l.tp)};
  if (o.cp) c.push_back(std::to_string(l.cp));
  for (int x : {l.pp, l.dp}) c.push_back(std::to_string(x));
  if (o.experts) c.push_back(std::to_string(l.ep));
  for (std::string x : {std::to_string(l.zero), std::string(l.sequenceParallel ? "yes" : "no"),
                        std::to_string(p.candidate.microBatch), std::to_string(l.microBatches),
                        std::string(l.pp > 1 ? pipelineKindName(l.schedule) : "-")})
    c.push_back(std::move(x));
  if (o.virtualStages) c.push_back(l.pp > 1 && l.schedule == PipelineKind::Interleaved ? std::to_string(l.virtualStages) : "-");
  if (o.recomputation) c.push_back(p.candidate.recomputation ? recomputationName(*p.candidate.recomputation) : "-");
  return c;
}

TextTable planTable(const PlanReport& r) {
  const OptionalColumns o = optionalColumns(r);
  std::vector<std::string> h{"rank", "devices", "tp"};
  if (o.cp) h.push_back("cp");
  for (const char* c : {"pp", "dp"}) h.push_back(c);
  if (o.experts) h.push_back("ep");
  for (const char* c : {"zero", "sp", "mb", "m", "schedule"}) h.push_back(c);
  if (o.virtualStages) h.push_back("v");
  if (o.recomputation) h.push_back("recompute");
  for (const char* c : {"step_ms", "band_ms", "tie", "tokens/s", "mfu", "memory_GiB", "headroom_GiB", "compute_ms",
                        "tp_ms"})
    h.push_back(c);
  if (o.experts) h.push_back("ep_ms");
  for (const char* c : {"pp_ms", "bubble_ms", "dp_ms", "optimizer_ms"}) h.push_back(c);
  TextTable t(h);
  int devices = -1;
  std::size_t rank = 0; // within a device count
  for (const PlannedLayout& p : r.plans) {
    if (p.devices != devices) devices = p.devices, rank = 0;
    if (r.top > 0 && rank >= r.top) continue;
    std::vector<std::string> row{std::to_string(++rank)};
    for (auto& c : layoutCells(p, o)) row.push_back(c);
    if (!p.error.empty()) {
      row.push_back("FAILED");
      row.resize(h.size(), "-");
      t.add(std::move(row));
      continue;
    }
    const StepResult& s = p.step;
    const StepBreakdown& b = s.breakdown;
    Bytes memory = p.candidate.memory.total();
    const double band = double(s.iteration) * r.uncertainty.betweenLayouts;
    for (std::string c : {stepMs(s.iteration), "+-" + stepMs(Time(band)), std::string(p.tie ? "tie" : "-"),
                          s.tokensPerSample ? fixed(s.tokensPerSecond(), 0) : "-",
                          s.mfu() > 0 ? percent(s.mfu()) : "-", memoryGib(memory),
                          r.deviceMemory ? fixed(gibOf(r.deviceMemory) - gibOf(memory), 1) : "-", stepMs(b.compute),
                          stepMs(b.tensorParallel)})
      row.push_back(std::move(c));
    if (o.experts) row.push_back(stepMs(b.expertParallel));
    for (Time x : {b.pipeline, b.bubble, b.dataParallel, b.optimizer}) row.push_back(stepMs(x));
    t.add(std::move(row));
  }
  return t;
}

std::string header(const PlanReport& r, bool md) {
  std::ostringstream os;
  std::string c = md ? "" : "# ";
  os << c << "collsim " << r.command << ": " << r.name << "\n";
  if (!r.description.empty()) os << c << r.description << "\n";
  os << c << "model: " << r.model << " (" << fixed(double(r.parameters) / 1e9, 1) << " B parameters); cluster: "
     << r.cluster << "; global batch " << r.globalBatch << " samples";
  if (r.sequence) os << " (" << r.globalBatch * r.sequence << " tokens)";
  os << "; group collectives: " << r.algorithm << "\n";
  std::size_t failed = 0;
  for (const auto& p : r.plans) failed += !p.error.empty();
  os << c << r.plans.size() + r.pruned.size() << " layouts: " << r.plans.size() - failed << " simulated, "
     << r.pruned.size() << " pruned before simulating (they do not divide, or do not fit in memory)";
  if (failed) os << ", " << failed << " failed";
  os << "; fastest first" << (r.top ? " (the best " + std::to_string(r.top) + " per device count)" : "") << "\n";
  os << c << "mb = samples per micro-batch, m = micro-batches per step; step time broken down for the device that\n"
     << c << "finished last: compute, waits in TP collectives (and EP AllToAlls), pipeline transfers, the pipeline\n"
     << c << "bubble, DP gradients and ZeRO's AllGathers, the optimizer. Modelled: TP per block, PP (GPipe, 1F1B,\n"
     << c << "interleaved), DP with ZeRO 0-3, EP, CP, recomputation, all on one simulated network.\n";
  const PredictionError& u = r.uncertainty;
  if (u.calibratedRuns > 0)
    os << c << "band: one standard deviation, " << percent(u.betweenLayouts) << " (the device's calibration to "
       << u.calibratedRuns << " run(s)); ties: within the band of the fastest, most headroom first\n";
  else
    os << c << "band: one standard deviation between layouts, " << percent(u.betweenLayouts)
       << " (docs/validation.md: the published runs about each table's own bias;\n"
       << c << "a step time itself is within " << percent(u.absolute)
       << " uncalibrated: calibrate the device to your runs); ties: within the band of the fastest, most headroom first\n";
  return os.str();
}

std::string prunedText(const PlanReport& r, bool md) {
  std::string out;
  std::size_t memory = 0;
  for (const auto& p : r.pruned) memory += p.candidate.pruned.rfind("needs ", 0) == 0;
  if (r.pruned.empty()) return out;
  out += (md ? "\n" : "# ") + std::to_string(r.pruned.size()) + " pruned: " + std::to_string(memory) +
         " do not fit in memory, " + std::to_string(r.pruned.size() - memory) +
         " do not divide the model, the cluster or the global batch (the JSON lists each with its reason)\n";
  return out;
}

std::string text(const PlanReport& r, bool md) {
  std::string out = header(r, md);
  TextTable t = planTable(r);
  out += md ? "\n" + t.markdown() : t.text();
  out += prunedText(r, md);
  return out;
}

nlohmann::json layoutJson(const PlannedLayout& p) {
  const ParallelLayout& l = p.candidate.layout;
  return {{"servers", p.servers}, {"devices", p.devices}, {"tp", l.tp}, {"cp", l.cp}, {"pp", l.pp}, {"dp", l.dp},
          {"ep", l.ep}, {"zero", l.zero}, {"sequence_parallel", l.sequenceParallel},
          {"micro_batch", p.candidate.microBatch}, {"micro_batches", l.microBatches},
          {"schedule", pipelineKindName(l.schedule)}, {"virtual_stages", l.virtualStages},
          {"recomputation", p.candidate.recomputation ? nlohmann::json(recomputationName(*p.candidate.recomputation))
                                                      : nlohmann::json(nullptr)},
          {"memory_GiB", gibOf(p.candidate.memory.total())}};
}

nlohmann::json planJson(const PlanReport& r, const PlannedLayout& p) {
  nlohmann::json j = layoutJson(p);
  if (!p.error.empty()) {
    j["status"] = "failed";
    j["error"] = p.error;
    return j;
  }
  const StepResult& s = p.step;
  const StepBreakdown& b = s.breakdown;
  auto msOf = [](Time t) { return toMicroseconds(t) / 1e3; };
  j["status"] = "ok";
  j["step_ms"] = msOf(s.iteration);
  j["band"] = r.uncertainty.betweenLayouts;
  j["band_absolute"] = r.uncertainty.absolute;
  j["tie"] = p.tie;
  j["tokens_per_s"] = s.tokensPerSample ? nlohmann::json(s.tokensPerSecond()) : nlohmann::json(nullptr);
  j["mfu"] = s.mfu() > 0 ? nlohmann::json(s.mfu()) : nlohmann::json(nullptr);
  j["headroom_GiB"] = r.deviceMemory ? nlohmann::json(gibOf(r.deviceMemory) - gibOf(p.candidate.memory.total()))
                                     : nlohmann::json(nullptr);
  j["fits"] = r.deviceMemory ? nlohmann::json(p.candidate.memory.total() <= r.deviceMemory) : nlohmann::json(nullptr);
  j["breakdown"] = {{"compute_ms", msOf(b.compute)},         {"tp_ms", msOf(b.tensorParallel)},
                    {"pp_ms", msOf(b.pipeline)},             {"bubble_ms", msOf(b.bubble)},
                    {"dp_ms", msOf(b.dataParallel)},         {"ep_ms", msOf(b.expertParallel)},
                    {"optimizer_ms", msOf(b.optimizer)}};
  j["events"] = s.events;
  j["simulated_devices"] = s.simulatedRanks;
  j["symmetry"] = s.symmetry;
  return j;
}

nlohmann::json reportJson(const PlanReport& r) {
  nlohmann::json plans = nlohmann::json::array(), pruned = nlohmann::json::array();
  for (const auto& p : r.plans) plans.push_back(planJson(r, p));
  for (const auto& p : r.pruned) {
    nlohmann::json j = layoutJson(p);
    if (p.candidate.memory.total() == 0) j.erase("memory_GiB");
    j["reason"] = p.candidate.pruned;
    pruned.push_back(std::move(j));
  }
  return {{"tool", "collsim"}, {"command", r.command}, {"kind", "plan"}, {"name", r.name},
          {"description", r.description}, {"model", r.model}, {"parameters", r.parameters},
          {"cluster", r.cluster}, {"global_batch", r.globalBatch}, {"algorithm", r.algorithm},
          {"device_memory_GiB", gibOf(r.deviceMemory)}, {"plans", plans}, {"pruned", pruned}};
}

std::string csv(const PlanReport& r) {
  std::vector<nlohmann::json> rows;
  for (const auto& p : r.plans) {
    nlohmann::json j = planJson(r, p), flat = nlohmann::json::object();
    for (auto& [k, v] : j.items())
      if (!v.is_structured()) flat[k] = v;
    if (j.contains("breakdown"))
      for (auto& [k, v] : j["breakdown"].items()) flat[k] = v;
    rows.push_back(std::move(flat));
  }
  return flatRowsCsv(rows);
}

} // namespace

std::string formatPlanReport(const PlanReport& report, OutputFormat format) {
  switch (format) {
  case OutputFormat::Json: return reportJson(report).dump(2) + "\n";
  case OutputFormat::Csv: return csv(report);
  case OutputFormat::Markdown: return text(report, true);
  case OutputFormat::Table: return text(report, false);
  case OutputFormat::Dot:
  case OutputFormat::Junit: break; // not a row format (common_options.h refuses it)
  }
  throw std::logic_error(std::string("a plan report has no ") + outputFormatName(format) + " form");
}

} // namespace collsim
