#include "sim/cli/report.h"

#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace collsim {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

struct Column {
  const char* header;
  int width;
  bool left;
};
constexpr Column kColumns[] = {{"op", 13, true},     {"algo", 8, true},       {"ranks", 6, false},
                               {"size", 10, false},  {"bytes", 12, false},    {"count", 11, false},
                               {"type", 8, false},   {"time_us", 13, false},  {"algbw_GB/s", 11, false},
                               {"busbw_GB/s", 11, false}};

std::vector<std::string> cells(const CollectiveRun& r) {
  return {collectiveName(r.op), r.algorithm, std::to_string(r.ranks), formatBytes(r.bytes),
          std::to_string(r.bytes), std::to_string(r.count), dataTypeInfo(r.dtype).name,
          fixed(r.timeUs(), 3), fixed(r.algbwGBps(), 3), fixed(r.busbwGBps(), 3)};
}

std::string pad(const std::string& s, const Column& c) {
  if (int(s.size()) >= c.width) return s;
  std::string space(std::size_t(c.width) - s.size(), ' ');
  return c.left ? s + space : space + s;
}

std::string table(const Report& rep) {
  std::ostringstream os;
  os << "# collsim " << rep.command << ": " << rep.name << "\n";
  if (!rep.description.empty()) os << "# " << rep.description << "\n";
  os << "# cluster: " << rep.clusterName << " (" << rep.clusterDescription << ")\n";
  os << "# segment: " << formatBytes(rep.segment) << "; algbw = bytes / time, busbw = algbw x nccl-tests factor, GB = 1e9 B\n";
  os << "#";
  for (const Column& c : kColumns) os << ' ' << pad(c.header, c);
  os << "\n";
  for (const auto& r : rep.results) {
    auto row = cells(r);
    os << " ";
    for (std::size_t i = 0; i < row.size(); ++i) os << ' ' << pad(row[i], kColumns[i]);
    os << "\n";
  }
  return os.str();
}

std::string markdown(const Report& rep) {
  std::ostringstream os;
  os << "**" << rep.name << "** on " << rep.clusterName << " (" << rep.clusterDescription << ")\n\n|";
  for (const Column& c : kColumns) os << ' ' << c.header << " |";
  os << "\n|";
  for (const Column& c : kColumns) os << (c.left ? " :-- |" : " --: |");
  os << "\n";
  for (const auto& r : rep.results) {
    os << "|";
    for (const auto& cell : cells(r)) os << ' ' << cell << " |";
    os << "\n";
  }
  return os.str();
}

std::string csv(const Report& rep) {
  std::ostringstream os;
  os << "op,algorithm,ranks,bytes,count,dtype,time_us,algbw_GBps,busbw_GBps,events,messages\n";
  for (const auto& r : rep.results)
    os << collectiveName(r.op) << ',' << r.algorithm << ',' << r.ranks << ',' << r.bytes << ',' << r.count << ','
       << dataTypeInfo(r.dtype).name << ',' << fixed(r.timeUs(), 6) << ',' << fixed(r.algbwGBps(), 6) << ','
       << fixed(r.busbwGBps(), 6) << ',' << r.execution.events << ',' << r.execution.messages << "\n";
  return os.str();
}

std::string json(const Report& rep) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& r : rep.results) {
    results.push_back({{"op", collectiveName(r.op)},
                       {"algorithm", r.algorithm},
                       {"ranks", r.ranks},
                       {"bytes", r.bytes},
                       {"count", r.count},
                       {"dtype", dataTypeInfo(r.dtype).name},
                       {"time_us", r.timeUs()},
                       {"algbw_GBps", r.algbwGBps()},
                       {"busbw_GBps", r.busbwGBps()},
                       {"events", r.execution.events},
                       {"messages", r.execution.messages},
                       {"bytes_sent", r.execution.bytesSent},
                       {"bytes_received", r.execution.bytesReceived}});
  }
  nlohmann::ordered_json doc = {{"tool", "collsim"},
                                {"command", rep.command},
                                {"name", rep.name},
                                {"cluster", {{"name", rep.clusterName}, {"description", rep.clusterDescription}}},
                                {"segment_bytes", rep.segment},
                                {"seed", rep.seed},
                                {"results", std::move(results)}};
  return doc.dump(2) + "\n";
}

} // namespace

bool parseOutputFormat(const std::string& name, OutputFormat& out) {
  if (name == "table") out = OutputFormat::Table;
  else if (name == "json") out = OutputFormat::Json;
  else if (name == "csv") out = OutputFormat::Csv;
  else if (name == "md") out = OutputFormat::Markdown;
  else return false;
  return true;
}

std::string formatReport(const Report& report, OutputFormat format) {
  switch (format) {
  case OutputFormat::Table: return table(report);
  case OutputFormat::Json: return json(report);
  case OutputFormat::Csv: return csv(report);
  case OutputFormat::Markdown: return markdown(report);
  }
  return table(report);
}

} // namespace collsim
