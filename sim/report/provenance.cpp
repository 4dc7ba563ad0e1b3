#include "sim/report/provenance.h"

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace collsim {
namespace {

// A word as a POSIX shell reads it back: bare when it holds nothing special;
// with a control character (a newline in a --set value) as $'...', so that
// the provenance header stays one line.
std::string shellWord(const std::string& word) {
  bool bare = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                      "_-./=:,+@%") == std::string::npos;
  if (bare) return word;
  auto control = [](unsigned char c) { return c < 0x20 || c == 0x7f; };
  if (std::any_of(word.begin(), word.end(), control)) {
    std::string quoted = "$'";
    for (unsigned char c : word) {
      if (c == '\\' || c == '\'') quoted += '\\', quoted += char(c);
      else if (c == '\n') quoted += "\\n";
      else if (c == '\t') quoted += "\\t";
      else if (control(c)) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "\\x%02x", c);
        quoted += hex;
      } else quoted += char(c);
    }
    return quoted + "'";
  }
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
  case OutputFormat::Markdown: { // "-->" in a value would close the comment early
    std::string line = commandLine;
    for (std::size_t at; (at = line.find("-->")) != std::string::npos;) line.replace(at, 3, "-- >");
    return "<!-- collsim " + version + ": " + line + " -->\n" + text;
  }
  case OutputFormat::Dot: return "// collsim " + version + ": " + commandLine + "\n" + text;
  case OutputFormat::Junit: return text; // a CI's XML, read by programs: as it is
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
