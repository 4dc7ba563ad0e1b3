#include "sim/cli/provenance.h"

#include <nlohmann/json.hpp>

namespace collsim {
namespace {

// A word as a POSIX shell reads it back: bare when it holds nothing special.
std::string shellWord(const std::string& word) {
  bool bare = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                      "_-./=:,+@%") == std::string::npos;
  if (bare) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

} // namespace

std::string commandLineOf(int argc, const char* const* argv, const std::string& program) {
  std::string line = program;
  for (int i = 1; i < argc; ++i) line += " " + shellWord(argv[i]);
  return line;
}

std::string withProvenance(const std::string& text, OutputFormat format, const std::string& commandLine,
                           const std::string& resolvedInput) {
  const std::string version = COLLSIM_VERSION_STRING;
  switch (format) {
  case OutputFormat::Table:
  case OutputFormat::Csv: return "# collsim " + version + ": " + commandLine + "\n" + text;
  case OutputFormat::Markdown: return "<!-- collsim " + version + ": " + commandLine + " -->\n" + text;
  case OutputFormat::Json: break;
  }
  auto doc = nlohmann::ordered_json::parse(text);
  if (!doc.is_object()) return text;
  nlohmann::ordered_json stamped = {{"collsim_version", version}, {"command_line", commandLine}};
  if (!resolvedInput.empty()) stamped["resolved_input"] = resolvedInput;
  for (auto& [key, value] : doc.items()) stamped[key] = std::move(value);
  return stamped.dump(2) + "\n";
}

} // namespace collsim
