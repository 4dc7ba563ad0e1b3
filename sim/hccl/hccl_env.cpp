#include "sim/hccl/hccl_env.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "sim/config/config_node.h"
#include "sim/config/input_file.h"

extern char** environ;

namespace collsim {
namespace {

std::string trim(std::string s) {
  auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
  s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
  return s;
}

std::string unquote(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  return v;
}

bool compare(long long a, const std::string& op, long long b) {
  if (op == "-lt") return a < b;
  if (op == "-le") return a <= b;
  if (op == "-gt") return a > b;
  if (op == "-ge") return a >= b;
  if (op == "-eq") return a == b;
  return a != b; // -ne
}

// "export NAME=VALUE" (the value up to the first blank); false otherwise.
bool parseExport(const std::string& line, std::string& name, std::string& value) {
  std::istringstream in(line);
  std::string word, assignment;
  if (!(in >> word >> assignment) || word != "export") return false;
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = assignment.substr(0, eq);
  for (std::size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (!(std::isalpha(c) || c == '_' || (i > 0 && std::isdigit(c)))) return false;
  }
  value = assignment.substr(eq + 1);
  return true;
}

// "if [ "$WORLD_SIZE" -le 8 ]; then": the operator and the number.
bool parseIf(std::string line, std::string& op, long long& n) {
  for (std::size_t at = 0; (at = line.find(';', at)) != std::string::npos; at += 3) line.replace(at, 1, " ; ");
  std::istringstream in(line);
  std::vector<std::string> t;
  for (std::string w; in >> w;) t.push_back(w);
  static const std::vector<std::string> vars = {"\"$WORLD_SIZE\"", "$WORLD_SIZE", "\"${WORLD_SIZE}\"", "${WORLD_SIZE}"};
  static const std::vector<std::string> ops = {"-lt", "-le", "-gt", "-ge", "-eq", "-ne"};
  if (t.size() != 8 || t[0] != "if" || t[1] != "[" || t[5] != "]" || t[6] != ";" || t[7] != "then") return false;
  if (std::find(vars.begin(), vars.end(), t[2]) == vars.end() || std::find(ops.begin(), ops.end(), t[3]) == ops.end())
    return false;
  if (t[4].empty() || !std::all_of(t[4].begin(), t[4].end(), [](unsigned char c) { return std::isdigit(c); })) return false;
  op = t[3];
  // Any count of devices fits in 18 digits; a longer number is beyond every world size.
  n = t[4].size() > 18 ? std::numeric_limits<long long>::max() : std::stoll(t[4]);
  return true;
}


} // namespace

std::vector<EnvSetting> readEnvFile(const std::string& file, int worldSize) {
  return readEnvText(readInputFile(file, "--env-file"), file, worldSize);
}

std::vector<EnvSetting> readEnvText(const std::string& text, const std::string& file, int worldSize) {
  std::istringstream in(text);
  std::vector<EnvSetting> out;
  std::vector<bool> active; // nested if blocks
  std::vector<int> opened;  // and the line of each
  int closed = 0;           // how many of them are false: a line counts when none is
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::string t = trim(line.substr(0, line.find(" #")));
    const bool on = closed == 0;
    std::string op, name, value;
    long long limit = 0;
    if (parseIf(t, op, limit)) {
      active.push_back(compare(worldSize, op, limit));
      closed += !active.back();
      opened.push_back(n);
    } else if (t == "fi") {
      if (active.empty()) throw ConfigError(file + ":" + std::to_string(n) + ": 'fi' without 'if'");
      closed -= !active.back();
      active.pop_back();
      opened.pop_back();
    } else if (t.rfind("if ", 0) == 0) {
      throw ConfigError(file + ":" + std::to_string(n) + ": only if [ \"$WORLD_SIZE\" -op N ]; then ... fi is understood");
    } else if (on && parseExport(t, name, value)) {
      out.push_back({name, unquote(value), file + ":" + std::to_string(n)});
    }
  }
  if (!active.empty()) throw ConfigError(file + ":" + std::to_string(opened.back()) + ": 'if' without 'fi'");
  return out;
}

std::vector<EnvSetting> readProcessEnv() {
  std::vector<EnvSetting> out;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    bool library = kv.rfind("HCCL_", 0) == 0 || kv.rfind("NCCL_", 0) == 0;
    if (library && eq != std::string::npos) out.push_back({kv.substr(0, eq), kv.substr(eq + 1), "environment"});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

} // namespace collsim
