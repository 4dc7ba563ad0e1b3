#include "sim/report/comparison_report.h"

#include "sim/report/text_table.h"
#include "sim/validation/size_regions.h"

namespace collsim {
namespace {

// "small (under 1MiB): 4 sizes, median -12.3% (|e| 12.3%); ...": the
// regions that hold a compared size.
std::string sizeRegionLine(const std::vector<SizeRegionError>& regions) {
  std::string line;
  for (const SizeRegionError& r : regions) {
    if (r.sizes == 0) continue;
    std::string bounds = r.from == 0    ? "under " + formatBytes(r.below)
                         : r.below == 0 ? formatBytes(r.from) + " and more"
                                        : formatBytes(r.from) + " to " + formatBytes(r.below);
    line += (line.empty() ? "" : "; ") + r.name + " (" + bounds + "): " + std::to_string(r.sizes) +
            (r.sizes == 1 ? " size" : " sizes") + ", median " + (r.medianError > 0 ? "+" : "") +
            percent(r.medianError) + " (|error| " + percent(r.medianAbsError) + ")" +
            (r.systematic() ? ", systematic" : "");
  }
  return line;
}

} // namespace

std::string comparisonTable(const MeasuredCurve& curve, const Comparison& c, const std::string& clusterName) {
  bool library = c.library != "ideal";
  bool several = !c.points.empty() && !c.points.front().algorithm.empty();
  std::string s = "# " + curve.source + ": " + curve.tool + ", " + collectiveName(c.op) + " " +
                  dataTypeInfo(curve.dtype).name + ", " + std::to_string(c.ranks) + " ranks; predicted: " + c.algorithm +
                  (library ? " under " + c.library : "") + " on " + clusterName + "\n";
  if (c.hostUs > 0)
    s += "# issued back to back: a size takes the devices' time, or the host's " + fixed(c.hostUs, 2) +
         " us of launches (" + std::to_string(curve.devicesPerThread) + " device(s) a thread), marked host\n";
  std::vector<std::string> header = {"size", "bytes", "measured_us", "predicted_us", "error", "line_us", "line_error"};
  if (several) header.push_back("algorithm");
  if (library) header.insert(header.end(), {"protocol", "channels"});
  TextTable t(header);
  for (const auto& p : c.points) {
    std::vector<std::string> row = {formatBytes(p.bytes), std::to_string(p.bytes), fixed(p.measuredUs, 2),
                                    fixed(p.predictedUs, 2) + (p.hostBound ? " host" : ""), percent(p.error()),
                                    fixed(p.lineUs, 2), percent(p.lineError())};
    if (several) row.push_back(p.algorithm);
    if (library) row.insert(row.end(), {protocolText(p.protocol), std::to_string(p.channels)});
    t.add(row);
  }
  s += t.text();
  s += "# median |error| " + percent(c.medianAbsError) + ", max " + percent(c.maxAbsError) +
       "; the two-point line through the end sizes: median " + percent(c.lineMedianAbsError) + ", max " +
       percent(c.lineMaxAbsError) + "\n";
  s += "# by size: " + sizeRegionLine(errorBySizeRegion(c.points)) + "\n";
  return s;
}

nlohmann::ordered_json comparisonJson(const MeasuredCurve& curve, const Comparison& c, const std::string& clusterName) {
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (const auto& p : c.points) {
    nlohmann::ordered_json point = {{"bytes", p.bytes}, {"measured_us", p.measuredUs}, {"predicted_us", p.predictedUs},
                                    {"error", p.error()}, {"line_us", p.lineUs}, {"line_error", p.lineError()}};
    if (!p.algorithm.empty()) point["algorithm"] = p.algorithm;
    if (c.hostUs > 0) point["host_bound"] = p.hostBound;
    if (p.protocol) {
      point["protocol"] = protocolName(*p.protocol);
      point["channels"] = p.channels;
    }
    points.push_back(point);
  }
  nlohmann::ordered_json regions = nlohmann::ordered_json::array();
  for (const SizeRegionError& r : errorBySizeRegion(c.points)) {
    nlohmann::ordered_json region = {{"name", r.name}, {"from_bytes", r.from}};
    region["below_bytes"] = r.below > 0 ? nlohmann::ordered_json(r.below) : nlohmann::ordered_json(nullptr);
    region["sizes"] = r.sizes;
    if (r.sizes > 0) {
      region["median_error"] = r.medianError;
      region["median_abs_error"] = r.medianAbsError;
      region["systematic"] = r.systematic();
    }
    regions.push_back(region);
  }
  nlohmann::ordered_json j = {{"measured", curve.source}, {"tool", curve.tool},     {"op", collectiveName(c.op)},
                              {"dtype", dataTypeInfo(curve.dtype).name},          {"ranks", c.ranks},
                              {"cluster", clusterName},   {"algorithm", c.algorithm}, {"library", c.library},
                              {"host_us", c.hostUs},      {"devices_per_thread", curve.devicesPerThread},
                              {"points", points},
                              {"median_abs_error", c.medianAbsError},             {"max_abs_error", c.maxAbsError},
                              {"line_median_abs_error", c.lineMedianAbsError},    {"line_max_abs_error", c.lineMaxAbsError},
                              {"size_regions", regions}};
  return j;
}

std::string comparisonCsv(const Comparison& c) {
  std::string s = csvRow({"bytes", "measured_us", "predicted_us", "error", "line_us", "line_error"});
  for (const auto& p : c.points)
    s += csvRow({std::to_string(p.bytes), fixed(p.measuredUs, 3), fixed(p.predictedUs, 3), fixed(p.error(), 6),
                 fixed(p.lineUs, 3), fixed(p.lineError(), 6)});
  return s;
}

std::string measuredCurveNotes(const MeasuredCurve& curve) {
  std::string notes;
  if (curve.nonPositiveTimes > 0)
    notes += "collsim: note: " + curve.source + ": " + std::to_string(curve.nonPositiveTimes) +
             " row(s) with a time of 0 or less left out\n";
  if (curve.repeatedSizes > 0)
    notes += "collsim: note: " + curve.source + ": " + std::to_string(curve.repeatedSizes) +
             " row(s) repeat a size already read: each size compared once, at the mean of its times\n";
  return notes;
}

} // namespace collsim
