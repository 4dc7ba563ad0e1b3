#include "sim/core/units.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace collsim {
namespace {

struct NumberAndUnit {
  double value;
  std::string_view unit;
};

// Splits "12.5GB/s" into 12.5 and "GB/s"; rejects empty or negative numbers.
NumberAndUnit split(std::string_view text, const char* what) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0)
    throw UnitError("'" + std::string(text) + "' is not a " + what);
  std::string number(text.substr(0, i));
  char* end = nullptr;
  double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(v))
    throw UnitError("'" + std::string(text) + "' is not a " + what);
  std::string_view unit = text.substr(i);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return {v, unit};
}

template <typename T>
T checkedRound(double v, std::string_view text, const char* what) {
  double r = std::round(v);
  if (r < 0 || r > 9.2e18)
    throw UnitError("'" + std::string(text) + "' is out of range for a " + what);
  return static_cast<T>(r);
}

} // namespace

Bytes parseBytes(std::string_view text) {
  auto [v, unit] = split(text, "size (e.g. 4096, 64KiB, 1MB)");
  struct U { std::string_view name; double factor; };
  static constexpr U units[] = {
      {"", 1},         {"B", 1},        {"KiB", 1024.0},       {"MiB", 1048576.0},
      {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}, {"KB", 1e3}, {"MB", 1e6},
      {"GB", 1e9},     {"TB", 1e12},    {"K", 1024.0},         {"M", 1048576.0},
      {"G", 1073741824.0}};
  for (const U& u : units) {
    if (unit == u.name) {
      double bytes = v * u.factor;
      if (bytes != std::floor(bytes))
        throw UnitError("'" + std::string(text) + "' is not a whole number of bytes");
      return checkedRound<Bytes>(bytes, text, "size");
    }
  }
  throw UnitError("unknown size unit in '" + std::string(text) +
                  "' (use B, KiB, MiB, GiB, KB, MB or GB)");
}

Bandwidth parseBandwidth(std::string_view text) {
  auto [v, unit] = split(text, "bandwidth (e.g. 12GB/s, 100Gbps)");
  struct U { std::string_view name; double bytesPerSec; };
  static constexpr U units[] = {
      {"B/s", 1},       {"KB/s", 1e3},    {"MB/s", 1e6},    {"GB/s", 1e9},
      {"TB/s", 1e12},   {"bps", 0.125},   {"Kbps", 125.0},  {"Mbps", 1.25e5},
      {"Gbps", 1.25e8}, {"Tbps", 1.25e11}};
  for (const U& u : units) {
    if (unit == u.name) {
      Bandwidth bw = checkedRound<Bandwidth>(v * u.bytesPerSec, text, "bandwidth");
      if (bw == 0) throw UnitError("bandwidth must be positive, got '" + std::string(text) + "'");
      return bw;
    }
  }
  throw UnitError("unknown bandwidth unit in '" + std::string(text) +
                  "' (use GB/s = 1e9 bytes/s or Gbps = 1e9 bits/s)");
}

Time parseTime(std::string_view text) {
  auto [v, unit] = split(text, "time (e.g. 1us, 500ns)");
  struct U { std::string_view name; double ps; };
  static constexpr U units[] = {{"ps", 1},   {"ns", 1e3}, {"us", 1e6},
                                {"ms", 1e9}, {"s", 1e12}};
  if (unit.empty() && v == 0) return 0;
  for (const U& u : units)
    if (unit == u.name) return checkedRound<Time>(v * u.ps, text, "time");
  throw UnitError(unit.empty() ? "time '" + std::string(text) + "' needs a unit (ps, ns, us, ms, s)"
                               : "unknown time unit in '" + std::string(text) +
                                     "' (use ps, ns, us, ms or s)");
}

double parseCount(std::string_view text) {
  // strtod reads "7e9" whole; split() stops at the 'e'.
  std::string t(text);
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() && *end == '\0' && std::isfinite(v) && v >= 0) return v;
  auto [number, unit] = split(text, "count (e.g. 340M, 1.5B)");
  struct U { std::string_view name; double factor; };
  static constexpr U units[] = {{"", 1}, {"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}};
  for (const U& u : units)
    if (unit == u.name) return number * u.factor;
  throw UnitError("unknown count suffix in '" + std::string(text) + "' (use K, M, B or G, T)");
}

double parseFlops(std::string_view text) {
  auto [v, unit] = split(text, "compute rate (e.g. 312TFLOPS)");
  struct U { std::string_view prefix; double factor; };
  static constexpr U prefixes[] = {{"", 1}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
  for (const U& u : prefixes) {
    if (unit.substr(0, u.prefix.size()) != u.prefix) continue;
    std::string_view rest = unit.substr(u.prefix.size());
    if (rest == "FLOPS" || rest == "FLOP/s") {
      if (v <= 0) throw UnitError("a compute rate must be positive, got '" + std::string(text) + "'");
      return v * u.factor;
    }
  }
  throw UnitError("unknown compute rate unit in '" + std::string(text) + "' (use GFLOPS, TFLOPS or PFLOPS)");
}

namespace {
std::string trimmed(double v, const char* suffix) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g%s", v, suffix);
  return buf;
}
} // namespace

std::string formatBytes(Bytes b) {
  // Exact binary units first (64KiB), then round decimal sizes (1.36GB),
  // else the largest binary unit to four digits (976.6KiB).
  static constexpr const char* binary[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  static constexpr const char* decimal[] = {"B", "KB", "MB", "GB", "TB"};
  int i = 0;
  Bytes v = b;
  while (v >= 1024 && i < 4 && v % 1024 == 0) v /= 1024, ++i;
  if (v < 1024) return std::to_string(v) + binary[i];
  double x = double(b);
  i = 0;
  if (b % 1'000'000 == 0) {
    while (x >= 1000 && i < 4) x /= 1000, ++i;
    return trimmed(x, decimal[i]);
  }
  while (x >= 1024 && i < 4) x /= 1024, ++i;
  return trimmed(x, binary[i]);
}

std::string formatBandwidth(Bandwidth bw) {
  if (bw % 125'000'000ULL == 0 && bw % 1'000'000'000ULL != 0) return trimmed(double(bw) / 1.25e8, "Gbps");
  return trimmed(double(bw) / 1e9, "GB/s");
}

std::string formatLineRate(Bandwidth bw) { return trimmed(double(bw) / 1.25e8, "Gbps"); }

std::string formatTime(Time t) {
  if (t == 0) return "0";
  if (t % kPsPerMs == 0 || t >= 10 * kPsPerMs) return trimmed(double(t) / 1e9, "ms");
  if (t % kPsPerUs == 0 || t >= 10 * kPsPerUs) return trimmed(double(t) / 1e6, "us");
  if (t % kPsPerNs == 0 || t >= 10 * kPsPerNs) return trimmed(double(t) / 1e3, "ns");
  return trimmed(double(t), "ps");
}

} // namespace collsim
