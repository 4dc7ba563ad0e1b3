#include "sim/validation/measured_curve.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "sim/config/config_node.h"
#include "sim/config/input_file.h"

namespace collsim {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

bool isNumber(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

bool isCount(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// A row's size: digits (isCount), at most kMaxMeasuredBytes; "" when it is,
// else why not.
std::string sizeOf(const std::string& digits, Bytes& out) {
  std::size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return (out = 0), "";
  if (digits.size() - first > 15) return "size " + digits + " is more than collsim simulates (16 TiB)";
  out = Bytes(std::stoull(digits.substr(first)));
  if (out > kMaxMeasuredBytes) return "size " + digits + " is more than collsim simulates (16 TiB)";
  return "";
}

// nccl-tests' type names -> collsim's.
bool ncclType(const std::string& name, DataType& out) {
  static const std::map<std::string, std::string> names = {
      {"float", "float32"}, {"half", "float16"}, {"double", "float64"}, {"bfloat16", "bfloat16"},
      {"int8", "int8"},     {"int32", "int32"},  {"float32", "float32"}, {"float16", "float16"}, {"fp32", "float32"},
      {"fp16", "float16"},  {"bf16", "bfloat16"}};
  auto it = names.find(name);
  return it != names.end() && parseDataType(it->second, out);
}

// The operation, from a tool name in the text ("all_reduce_perf", "all_gather_test").
bool opFromText(const std::string& text, Collective& op) {
  static const std::pair<const char*, Collective> tools[] = {
      {"all_reduce", Collective::AllReduce}, {"reduce_scatter", Collective::ReduceScatter},
      {"all_gather", Collective::AllGather}, {"alltoall", Collective::AllToAll},
      {"all_to_all", Collective::AllToAll},  {"broadcast", Collective::Broadcast},
      {"reduce_perf", Collective::Reduce},   {"reduce_test", Collective::Reduce}};
  for (const auto& [name, c] : tools)
    if (text.find(name) != std::string::npos) {
      op = c;
      return true;
    }
  return false;
}

// p from busbw / algbw = factor(p), for the operations whose factor depends on p.
int ranksFromFactor(Collective op, double ratio) {
  for (int p = 2; p <= 1 << 20; ++p)
    if (std::abs(busBandwidthFactor(op, p) - ratio) < 0.5 * std::abs(busBandwidthFactor(op, p + 1) - busBandwidthFactor(op, p)))
      return p;
  return 0;
}

// "nGpus 8" (nccl-tests' header) or "-g 8" / "--ngpus 8" (its command line).
void devicesPerThreadIn(const std::vector<std::string>& w, int& out) {
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] != "nGpus" && w[i] != "-g" && w[i] != "--ngpus") continue;
    std::string n = w[i + 1];
    while (!n.empty() && (n.back() == ',' || n.back() == ';')) n.pop_back();
    if (isCount(n) && n.size() < 4 && std::stoi(n) > 0) out = std::stoi(n);
  }
}

// A setting's name as a shell takes it: letters, digits and '_'.
bool isSettingName(const std::string& name) {
  return !name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) == 0 &&
         std::all_of(name.begin(), name.end(), [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
}

// The run's library settings on one line: "# env: NAME=VALUE ..." (a
// sweep's header) or NCCL's own "... NCCL INFO NAME set by environment to
// VALUE" (NCCL_DEBUG=INFO). Returns an error, "" when the line is fine.
std::string settingsIn(const std::string& line, const std::vector<std::string>& w, const std::string& origin,
                       std::vector<EnvSetting>& out) {
  if (w.size() >= 2 && w[0] == "#" && w[1] == "env:") {
    if (w.size() == 2) return "'# env:' names no NAME=VALUE";
    for (std::size_t i = 2; i < w.size(); ++i) {
      std::size_t eq = w[i].find('=');
      if (eq == std::string::npos || eq == 0 || !isSettingName(w[i].substr(0, eq)))
        return "# env: '" + w[i] + "' is not NAME=VALUE";
      out.push_back({w[i].substr(0, eq), w[i].substr(eq + 1), origin});
    }
    return "";
  }
  const std::string info = "NCCL INFO ", said = " set by environment to ";
  std::size_t at = line.find(info), to = line.find(said);
  if (at == std::string::npos || to == std::string::npos || to < at) return "";
  std::string name = line.substr(at + info.size(), to - at - info.size());
  std::vector<std::string> value = words(line.substr(to + said.size()));
  if (isSettingName(name) && name.rfind("NCCL_", 0) == 0 && value.size() == 1) out.push_back({name, value[0], origin});
  return "";
}

// The NCCL release a line names, as 2.x's x; 0 when it names none.
int ncclMinorIn(const std::string& line, const std::vector<std::string>& w) {
  auto minorOf = [](const std::string& text) {
    int major = 0, minor = 0;
    return std::sscanf(text.c_str(), "%d.%d", &major, &minor) == 2 && major == 2 && minor > 0 && minor < 100 ? minor : 0;
  };
  if (auto at = line.find("NCCL INFO NCCL version "); at != std::string::npos)
    return minorOf(line.substr(at + 23));
  if (auto at = line.find("nccl-library="); at != std::string::npos) {
    long code = std::strtol(line.c_str() + at + 13, nullptr, 10); // 21903: 2.19.3
    return code / 10000 == 2 && code % 10000 / 100 > 0 ? int(code % 10000 / 100) : 0;
  }
  if (w.size() >= 2 && w[0] == "#" && w[1] == "hardware:")
    for (std::size_t i = 2; i + 1 < w.size(); ++i)
      if (w[i] == "NCCL") return minorOf(w[i + 1]);
  return 0;
}

} // namespace

MeasuredCurve readMeasuredCurve(const std::string& file) {
  return parseMeasuredCurve(readInputFile(file, "a measured log"), file);
}

MeasuredCurve parseMeasuredCurve(const std::string& text, const std::string& label) {
  MeasuredCurve c;
  c.source = label;
  c.opKnown = opFromText(text, c.op);
  std::istringstream in(text);
  std::string line;
  int rankLines = 0;
  double bestRatio = 0, bestBusbw = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    auto fail = [&](const std::string& why) { throw ConfigError(label + ":" + std::to_string(n) + ": " + why); };
    std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (std::string why = settingsIn(line, w, label + ":" + std::to_string(n), c.env); !why.empty()) fail(why);
    if (int minor = c.ncclMinor == 0 ? ncclMinorIn(line, w) : 0; minor > 0)
      c.ncclMinor = minor, c.ncclVersionOrigin = label + ":" + std::to_string(n);
    if (w[0] == "#" && w.size() > 2 && w[1] == "Rank") ++rankLines;
    if (w[0][0] == '#') devicesPerThreadIn(w, c.devicesPerThread);
    if (line.find("data_size") != std::string::npos) c.tool = "hccl_test";
    if (w[0][0] == '#' || !isCount(w[0])) continue;
    Bytes bytes = 0;
    if (std::string why = sizeOf(w[0], bytes); !why.empty()) fail(why);
    auto add = [&](double time) {
      if (time > 0) c.points.push_back({bytes, time});
      else ++c.nonPositiveTimes;
    };
    // hccl_test: size time algbw check.
    if (w.size() == 4 && c.tool == "hccl_test") {
      double time = 0;
      if (!isNumber(w[1], time)) fail("aveg_time '" + w[1] + "' is not a number");
      add(time);
      continue;
    }
    // nccl-tests: 13 fields with the root column, 12 without.
    if (w.size() != 12 && w.size() != 13) fail("expected a nccl-tests row (size count type redop [root] time algbw busbw #wrong x2) or an hccl_test row");
    c.tool = "nccl-tests";
    std::size_t t = w.size() == 13 ? 5 : 4; // the out-of-place time
    double time = 0, algbw = 0, busbw = 0;
    if (!isNumber(w[t], time) || !isNumber(w[t + 1], algbw) || !isNumber(w[t + 2], busbw))
      fail("time, algbw and busbw must be numbers");
    if (!ncclType(w[2], c.dtype)) fail("unknown data type '" + w[2] + "'");
    add(time);
    if (algbw > 0 && busbw > bestBusbw) bestBusbw = busbw, bestRatio = busbw / algbw;
  }
  if (c.points.empty())
    throw ConfigError(label + ": no measurements (nccl-tests or hccl_test rows with a time above 0) found");
  if (c.tool.empty()) c.tool = "nccl-tests";
  std::stable_sort(c.points.begin(), c.points.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
  // A size read more than once keeps the mean of its times.
  std::vector<MeasuredPoint> merged;
  for (std::size_t i = 0; i < c.points.size();) {
    std::size_t j = i;
    double sum = 0;
    for (; j < c.points.size() && c.points[j].bytes == c.points[i].bytes; ++j) sum += c.points[j].timeUs;
    merged.push_back({c.points[i].bytes, sum / double(j - i)});
    c.repeatedSizes += int(j - i - 1);
    i = j;
  }
  c.points = std::move(merged);
  if (c.points.size() > kMaxMeasuredSizes)
    throw ConfigError(label + ": " + std::to_string(c.points.size()) + " sizes; collsim compares at most " +
                      std::to_string(kMaxMeasuredSizes) + " (each is a simulation)");
  c.ranks = rankLines;
  c.busFactor = bestRatio;
  return c;
}

int ranksOf(const MeasuredCurve& curve, Collective op) {
  if (curve.ranks > 0) return curve.ranks;
  return curve.busFactor > 0 ? ranksFromFactor(op, curve.busFactor) : 0;
}

} // namespace collsim
