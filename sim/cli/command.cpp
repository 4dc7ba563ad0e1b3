#include "sim/cli/command.h"

#include <filesystem>
#include <fstream>

#include <CLI/CLI.hpp>

#include "sim/cli/execute.h"
#include "sim/trace/trace_recorder.h"

namespace collsim {

void addOutputOptions(CLI::App* cmd, OutputOptions& o, const char* setHelp) {
  cmd->add_option("--format", o.format, "table, json, csv or md")->capture_default_str();
  cmd->add_option("--out", o.out, "write the results to FILE instead of standard output");
  cmd->add_option("--trace", o.trace, "write a Chrome trace-event JSON file (Perfetto)");
  cmd->add_option("--seed", o.seed, "random seed (runs are deterministic per seed)")->capture_default_str();
  cmd->add_option("--set", o.sets, setHelp);
}

void writeFileAtomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!(f << content) || !f.flush()) {
      std::filesystem::remove(tmp);
      throw UsageError("cannot write '" + path + "'");
    }
  }
  std::filesystem::rename(tmp, path);
}

void emit(const std::string& text, const std::string& outPath, CliStreams io) {
  if (outPath.empty()) io.out << text;
  else writeFileAtomically(outPath, text);
}

Bytes optionBytes(const std::string& option, const std::string& value) {
  try {
    return parseBytes(value);
  } catch (const UnitError& e) {
    throw UsageError(option + ": " + e.what());
  }
}

int simulateAndReport(const Scenario& scenario, const std::string& command, const OutputOptions& o, CliStreams io) {
  OutputFormat format;
  if (!parseOutputFormat(o.format, format)) throw UsageError("--format: '" + o.format + "' is not table, json, csv or md");
  TraceRecorder recorder;
  ExecuteOptions options{o.trace.empty() ? nullptr : &recorder, io.progress ? &io.err : nullptr, o.seed};
  Report report = executeScenario(scenario, command, options);
  std::string text = formatReport(report, format);
  if (!o.trace.empty()) {
    writeFileAtomically(o.trace, recorder.json());
    if (recorder.truncated()) io.err << "collsim: note: the trace was cut at its event limit\n";
  }
  emit(text, o.out, io);
  return 0;
}

} // namespace collsim
