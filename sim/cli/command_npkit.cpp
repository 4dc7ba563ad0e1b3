// collsim npkit TRACE: the fixed cost of one pipeline step of NCCL's
// primitives, fitted from an NPKit trace (sim/validation/npkit_trace.h),
// and the --set that gives it to collsim's library model.
#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/report/provenance.h"
#include "sim/report/text_table.h"
#include "sim/study/output_file.h"
#include "sim/validation/npkit_trace.h"

namespace collsim {
namespace {

struct NpkitOptions {
  std::string trace, protocol = "Simple", out;
  OutputFormat format = OutputFormat::Table;
};

std::string rate(double gbPerSecond) { return gbPerSecond > 0 ? fixed(gbPerSecond, 2) : "-"; }

int run(const NpkitOptions& o, CliStreams io) {
  std::optional<OutputFile> out;
  if (!o.out.empty()) out = OutputFile::check("--out", o.out);
  const NpkitTrace trace = readNpkitTrace(o.trace);
  const StepCostFit fit = fitStepCost(trace);
  // A fixed part below 0 is the fit's noise around none.
  const double stepCost = std::max(0.0, fit.fixedMicroseconds);
  const std::string set = "library.protocols." + o.protocol + ".step_overhead=" + fixed(stepCost, 3) + "us";
  std::string text;
  if (o.format == OutputFormat::Json) {
    nlohmann::ordered_json j;
    j["trace"] = {{"file", o.trace}, {"ranks", trace.ranks.size()}, {"calls", trace.calls.size()},
                  {"unclosed", trace.unclosed}};
    j["step_cost_us"] = stepCost;
    j["fixed_us"] = fit.fixedMicroseconds;
    j["fitted_calls"] = fit.calls;
    j["protocol"] = o.protocol;
    j["set"] = set;
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const PrimitiveFit& p : fit.primitives)
      rows.push_back({{"primitive", p.kind}, {"calls", p.calls}, {"min_bytes", p.minBytes}, {"max_bytes", p.maxBytes},
                      {"gb_per_s", p.gbPerSecond}, {"rms_us", p.rmsMicroseconds}});
    j["primitives"] = rows;
    nlohmann::ordered_json others = nlohmann::ordered_json::object();
    for (const auto& [kind, n] : fit.notFitted) others[kind] = n;
    j["not_fitted"] = others;
    text = withProvenance(j.dump(2) + "\n", OutputFormat::Json, io.commandLine, "");
  } else {
    TextTable t({"primitive", "calls", "min_bytes", "max_bytes", "GB/s", "rms_us"});
    for (const PrimitiveFit& p : fit.primitives)
      t.add({p.kind, std::to_string(p.calls), fixed(p.minBytes, 0), fixed(p.maxBytes, 0), rate(p.gbPerSecond),
             fixed(p.rmsMicroseconds, 3)});
    std::string others;
    for (const auto& [kind, n] : fit.notFitted) others += (others.empty() ? "" : ", ") + kind + " x" + std::to_string(n);
    text = withProvenance("", OutputFormat::Table, io.commandLine, "") + "# NPKit trace: " + o.trace + ", " +
           std::to_string(trace.ranks.size()) + " rank(s), " + std::to_string(trace.calls.size()) + " timed calls" +
           (trace.unclosed ? ", " + std::to_string(trace.unclosed) + " left open where the dump ends" : "") + "\n" +
           "# each primitive call moves one chunk: duration = fixed + bytes / rate, the fixed part shared\n" + t.text() +
           (others.empty() ? "" : "# not fitted (a collective's spans, a primitive's inner events, the proxy's): " + others + "\n") +
           "# fixed cost of a step: " + fixed(fit.fixedMicroseconds, 3) + " us over " + std::to_string(fit.calls) +
           " calls (the fence, the flag the peer polls, waiting for its slot, the link's latency)\n" +
           "# for collsim's " + o.protocol + " protocol: --set " + set + "\n";
  }
  if (out) writeOutputFiles({{*out, text}});
  else io.out << text;
  return 0;
}

} // namespace

Command addNpkitCommand(CLI::App& app) {
  auto o = std::make_shared<NpkitOptions>();
  auto* cmd = app.add_subcommand("npkit", "the fixed cost of a pipeline step of NCCL's primitives, fitted from an "
                                          "NPKit trace, as the --set that gives it to collsim");
  cmd->add_option("trace", o->trace, "NPKit's npkit_event_trace.json (npkit_trace_generator.py)")->required();
  cmd->add_option("--protocol", o->protocol, "the protocol the trace ran (NCCL_PROTO), whose step cost it sets")
      ->check(CLI::IsMember({"Simple", "LL", "LL128"}))
      ->capture_default_str();
  addFormatOption(cmd, o->format, kReportFormats);
  addOutOption(cmd, o->out);
  return {cmd, [o](CliStreams io) { return run(*o, io); }};
}

} // namespace collsim
