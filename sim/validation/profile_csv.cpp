// Kernel tables as CSV: msprof's op summary and torch_npu's kernel_details
// (profile.h), columns found by their names in the header.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "sim/config/config_node.h"
#include "sim/core/printable.h"
#include "sim/validation/profile_readers.h"

namespace collsim {
namespace {

// The fields of one CSV record (RFC 4180 quoting); `next` moves past it.
std::vector<std::string> record(const std::string& text, std::size_t& next) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  std::size_t i = next;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') fields.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else fields.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else if (c == '\n') {
      ++i;
      break;
    } else if (c != '\r') {
      fields.back() += c;
    }
  }
  next = i;
  return fields;
}

// A field without the spaces and tabs msprof pads it with (a tab keeps
// spreadsheets from turning long numbers into exponents).
std::string trimmed(const std::string& s) {
  std::size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

} // namespace

Profile parseKernelCsv(const std::string& text, const std::string& file, int device) {
  std::size_t at = 0, line = 1;
  std::vector<std::string> header = record(text, at);
  for (std::string& h : header) h = trimmed(h);
  auto column = [&](std::initializer_list<const char*> names) -> int {
    for (const char* n : names)
      if (auto it = std::find(header.begin(), header.end(), n); it != header.end()) return int(it - header.begin());
    return -1;
  };
  const int name = column({"Op Name", "Name"}), type = column({"OP Type", "Type"}),
            task = column({"Task Type", "Accelerator Core"}), start = column({"Task Start Time(us)", "Start Time(us)"}),
            duration = column({"Task Duration(us)", "Duration(us)"}), dev = column({"Device_id", "Device ID"}),
            step = column({"Step Id"});
  auto missing = [&](const char* what) {
    throw ConfigError(printable(file) + ":1: no " + what +
                      " column: expected msprof's op summary (Op Name, OP Type, Task Type, Task Start Time(us), "
                      "Task Duration(us)) or torch_npu's kernel_details.csv (Name, Type, Start Time(us), Duration(us))");
  };
  if (name < 0) missing("Op Name (or Name)");
  if (start < 0) missing("Task Start Time(us) (or Start Time(us))");
  if (duration < 0) missing("Task Duration(us) (or Duration(us))");
  NameTable names;
  std::vector<FoundKernel> found;
  std::vector<long long> stepOf; // per kernel found; -1: none
  while (at < text.size()) {
    ++line;
    std::vector<std::string> f = record(text, at);
    if (f.size() == 1 && trimmed(f[0]).empty()) continue;
    auto field = [&](int c) { return c >= 0 && std::size_t(c) < f.size() ? trimmed(f[std::size_t(c)]) : std::string(); };
    // A start counts microseconds from some origin (1.7e15 from 1970), a kernel runs for less than a day.
    auto number = [&](int c, const char* what, double most = 1e17) {
      std::string v = field(c);
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(x) || x < 0 || x > most)
        throw ConfigError(printable(file) + ":" + std::to_string(line) + ": " + what + " '" + printable(v) +
                          "' is not a time in microseconds (from 0 to " + (most < 1e17 ? "a day" : "1e17") + ")");
      return x;
    };
    if (found.size() >= kMaxProfileKernels)
      throw ConfigError(printable(file) + ": more than " + std::to_string(kMaxProfileKernels) +
                        " kernels: profile fewer steps");
    FoundKernel k;
    k.start = number(start, header[std::size_t(start)].c_str());
    k.duration = number(duration, header[std::size_t(duration)].c_str(), 86400e6);
    k.kind = classifyKernel(field(name), field(type), field(task));
    k.name = names.id(field(name));
    k.device = dev >= 0 ? int(std::min(number(dev, "Device_id"), double(1 << 20))) : 0;
    found.push_back(k);
    stepOf.push_back(step >= 0 && !field(step).empty() ? (long long)number(step, "Step Id") : -1);
  }
  Profile p = keepDevice(file, step >= 0 ? "torch_npu kernel_details" : "Ascend msprof op summary", names.take(), found,
                         device);
  // A step per id: from its first kernel's start to its last one's end.
  std::map<long long, std::pair<double, double>> spans;
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (found[i].device != p.device || stepOf[i] < 0) continue;
    double a = found[i].start, b = found[i].start + found[i].duration;
    auto [it, added] = spans.emplace(stepOf[i], std::make_pair(a, b));
    if (!added) it->second = {std::min(it->second.first, a), std::max(it->second.second, b)};
  }
  for (const auto& [id, span] : spans) p.steps.push_back({span.first, span.second, "step " + std::to_string(id)});
  return p;
}

} // namespace collsim
