#include "sim/report/report.h"
#include "sim/report/collective_json.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "algorithms/core/enum_names.h"
#include "sim/report/text_table.h"

#include "sim/report/network_report.h"
#include "sim/network/network_models.h"

namespace collsim {
namespace {

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
  os << "# " << (rep.fidelity == Fidelity::Packet ? "packet level" : "segment: " + formatBytes(rep.segment)) << "; algbw = bytes / time, busbw = algbw x nccl-tests factor, GB = 1e9 B\n";
  // The columns' widths, widened where a cell is longer (hierpipe:ring+rhd).
  std::vector<Column> columns(std::begin(kColumns), std::end(kColumns));
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : rep.results) rows.push_back(cells(r));
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) columns[i].width = std::max(columns[i].width, int(row[i].size()));
  os << "#";
  for (const Column& c : columns) os << ' ' << pad(c.header, c);
  os << "\n";
  for (const auto& row : rows) {
    os << " ";
    for (std::size_t i = 0; i < row.size(); ++i) os << ' ' << pad(row[i], columns[i]);
    os << "\n";
  }
  return os.str();
}

// Several algorithms: one row per size, one time column per algorithm, the
// fastest named (ties go to the first listed).
struct AlgorithmsBySize {
  std::vector<std::string> algorithms;
  std::vector<Bytes> sizes;
  std::vector<std::vector<const CollectiveRun*>> cells; // [size][algorithm]
};

AlgorithmsBySize compare(const Report& rep) {
  AlgorithmsBySize c;
  for (const auto& r : rep.results) {
    if (std::find(c.algorithms.begin(), c.algorithms.end(), r.algorithm) == c.algorithms.end())
      c.algorithms.push_back(r.algorithm);
    if (std::find(c.sizes.begin(), c.sizes.end(), r.bytes) == c.sizes.end()) c.sizes.push_back(r.bytes);
  }
  c.cells.assign(c.sizes.size(), std::vector<const CollectiveRun*>(c.algorithms.size(), nullptr));
  for (const auto& r : rep.results) {
    auto si = std::find(c.sizes.begin(), c.sizes.end(), r.bytes) - c.sizes.begin();
    auto ai = std::find(c.algorithms.begin(), c.algorithms.end(), r.algorithm) - c.algorithms.begin();
    c.cells[si][ai] = &r;
  }
  return c;
}

const CollectiveRun* fastestAt(const std::vector<const CollectiveRun*>& row) {
  const CollectiveRun* best = nullptr;
  for (const auto* r : row)
    if (r && (!best || r->execution.finish < best->execution.finish)) best = r;
  return best;
}

bool isFastest(const Report& rep, const CollectiveRun& run) {
  for (const auto& r : rep.results)
    if (r.bytes == run.bytes && r.execution.finish < run.execution.finish) return false;
  for (const auto& r : rep.results) // ties: the first listed wins
    if (r.bytes == run.bytes && r.execution.finish == run.execution.finish) return &r == &run;
  return true;
}

// A time column: 13 wide, or as wide as its algorithm's name.
int widthOf(const std::string& algorithm) { return std::max(13, int(algorithm.size())); }

std::string comparisonTable(const Report& rep, bool md) {
  AlgorithmsBySize c = compare(rep);
  std::ostringstream os;
  std::string op = rep.results.empty() ? "" : collectiveName(rep.results.front().op);
  if (md) {
    os << "**" << rep.name << "** on " << rep.clusterName << " (" << rep.clusterDescription << "), " << op
       << " time in us, fastest in bold\n\n| size |";
    for (const auto& a : c.algorithms) os << ' ' << a << " |";
    os << " fastest |\n| --: |";
    for (std::size_t i = 0; i < c.algorithms.size(); ++i) os << " --: |";
    os << " :-- |\n";
  } else {
    os << "# collsim " << rep.command << ": " << rep.name << " (" << op << ", time_us per algorithm; * = fastest)\n";
    if (!rep.description.empty()) os << "# " << rep.description << "\n";
    os << "# cluster: " << rep.clusterName << " (" << rep.clusterDescription << ")\n";
    os << "# " << (rep.fidelity == Fidelity::Packet ? "packet level" : "segment: " + formatBytes(rep.segment)) << "\n#"
       << pad("size", {"", 11, false});
    for (const auto& a : c.algorithms) os << ' ' << pad(a, {"", widthOf(a), false});
    os << "  fastest\n";
  }
  for (std::size_t si = 0; si < c.sizes.size(); ++si) {
    const CollectiveRun* best = fastestAt(c.cells[si]);
    if (md) os << "| " << formatBytes(c.sizes[si]) << " |";
    else os << ' ' << pad(formatBytes(c.sizes[si]), {"", 11, false});
    for (std::size_t ai = 0; ai < c.algorithms.size(); ++ai) {
      const CollectiveRun* r = c.cells[si][ai];
      std::string t = r ? fixed(r->timeUs(), 3) : "-";
      if (md) os << ' ' << (r == best ? "**" + t + "**" : t) << " |";
      else os << ' ' << pad(t + (r == best ? "*" : " "), {"", widthOf(c.algorithms[ai]), false});
    }
    os << (md ? " " : "  ") << (best ? best->algorithm : "") << (md ? " |\n" : "\n");
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
  std::string out = csvRow(collectiveCsvHeader());
  for (const auto& r : rep.results) out += csvRow(collectiveCsvCells(r, isFastest(rep, r)));
  return out;
}

std::string json(const Report& rep) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& r : rep.results) results.push_back(collectiveRunJson(r, isFastest(rep, r)));
  nlohmann::ordered_json doc = {{"tool", "collsim"},
                                {"command", rep.command},
                                {"name", rep.name},
                                {"cluster", {{"name", rep.clusterName}, {"description", rep.clusterDescription}}},
                                {"fidelity", fidelityName(rep.fidelity)},
                                {"segment_bytes", rep.segment},
                                {"seed", rep.seed},
                                {"results", std::move(results)}};
  if (!rep.notes.empty()) doc["notes"] = rep.notes;
  return doc.dump(2) + "\n";
}

} // namespace

std::vector<std::string> collectiveCsvHeader() {
  return {"op", "algorithm", "ranks", "bytes", "count", "dtype", "time_us", "algbw_GBps", "busbw_GBps", "events",
          "messages", "fastest"};
}

std::vector<std::string> collectiveCsvCells(const CollectiveRun& r, bool fastest) {
  return {collectiveName(r.op),         r.algorithm,
          std::to_string(r.ranks),      std::to_string(r.bytes),
          std::to_string(r.count),      dataTypeInfo(r.dtype).name,
          fixed(r.timeUs(), 6),         fixed(r.algbwGBps(), 6),
          fixed(r.busbwGBps(), 6),      std::to_string(r.execution.events),
          std::to_string(r.execution.messages), fastest ? "true" : "false"};
}

nlohmann::ordered_json collectiveRunJson(const CollectiveRun& r, bool fastest) {
  return {{"op", collectiveName(r.op)},
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
          {"bytes_received", r.execution.bytesReceived},
          {"fastest", fastest},
          {"simulated_ranks", r.simulatedRanks},
          {"symmetry", r.symmetry},
          {"network", networkJson(r.execution.network)}};
}


// Packet-level runs add their network figures below a table.
static std::string networkBlock(const Report& report, bool md) {
  if (report.fidelity != Fidelity::Packet) return "";
  std::vector<LabelledMetrics> rows;
  for (const auto& r : report.results) rows.push_back({{r.algorithm, formatBytes(r.bytes)}, &r.execution.network});
  return networkTable({"algo", "size"}, rows, md);
}

// Which runs simulated one unit of alike servers for all
// (sim/run/collective_symmetry.h), and why the others of a cluster of
// several servers ran every rank: a line an algorithm, its sizes named
// where they differ.
static std::string symmetryNotes(const Report& report, bool md) {
  std::vector<std::pair<std::string, std::vector<const CollectiveRun*>>> lines; // algorithm: text, runs
  for (const CollectiveRun& r : report.results) {
    if (r.symmetry.empty() || r.symmetry == "one server") continue;
    const std::string text = r.simulatedRanks < r.ranks
                                 ? std::to_string(r.simulatedRanks) + " of " + std::to_string(r.ranks) +
                                       " ranks simulated, " + r.symmetry
                                 : "every rank simulated: " + r.symmetry;
    auto it = std::find_if(lines.begin(), lines.end(), [&](const auto& l) {
      return l.second.front()->algorithm == r.algorithm && l.first == text;
    });
    if (it == lines.end()) lines.push_back({text, {&r}});
    else it->second.push_back(&r);
  }
  std::string out;
  for (const auto& line : lines) {
    const std::string& text = line.first;
    const std::vector<const CollectiveRun*>& runs = line.second;
    const std::string& algorithm = runs.front()->algorithm;
    const bool everySize = std::none_of(lines.begin(), lines.end(), [&](const auto& l) {
      return l.second.front()->algorithm == algorithm && l.first != text;
    });
    std::string sizes;
    for (const CollectiveRun* r : runs) sizes += (sizes.empty() ? "" : ", ") + formatBytes(r->bytes);
    out += (md ? "- " : "#   ") + algorithm + (everySize ? "" : " at " + sizes) + ": " + text + "\n";
  }
  if (out.empty()) return out;
  return (md ? "\nAlike servers simulated once, exactly (`simulation.symmetry: off` runs them all):\n\n"
             : "# alike servers simulated once, exactly (simulation.symmetry: off runs them all):\n") +
         out;
}

static std::string notes(const Report& report, bool md) {
  std::string out = symmetryNotes(report, md);
  for (const auto& n : report.notes) out += (md ? "\nNote: " : "# note: ") + n + "\n";
  return out;
}

std::string formatReport(const Report& report, OutputFormat format) {
  bool several = compare(report).algorithms.size() > 1;
  if (several && format == OutputFormat::Table)
    return comparisonTable(report, false) + networkBlock(report, false) + notes(report, false);
  if (several && format == OutputFormat::Markdown)
    return comparisonTable(report, true) + networkBlock(report, true) + notes(report, true);
  switch (format) {
  case OutputFormat::Table: return table(report) + networkBlock(report, false) + notes(report, false);
  case OutputFormat::Json: return json(report);
  case OutputFormat::Csv: return csv(report);
  case OutputFormat::Markdown: return markdown(report) + networkBlock(report, true) + notes(report, true);
  case OutputFormat::Dot:
  case OutputFormat::Junit: break; // not a row format (common_options.h refuses it)
  }
  throw std::logic_error(std::string("a collective report has no ") + outputFormatName(format) + " form");
}

} // namespace collsim
