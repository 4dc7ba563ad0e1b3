// The outputs of a collective study (collective_study.h).
#include <algorithm>
#include <sstream>

#include "sim/report/collective_json.h"
#include "sim/study/collective_study.h"
#include "sim/report/text_table.h"
#include "sim/network/network_models.h"

namespace collsim {
namespace {

bool hasVariants(const CollectiveStudyReport& r) {
  return std::any_of(r.points.begin(), r.points.end(), [](const auto& p) { return !p.variant.empty(); });
}

// The swept keys, in the order the first point lists them.
std::vector<std::string> sweepKeys(const CollectiveStudyReport& r) {
  std::vector<std::string> keys;
  for (const auto& p : r.points)
    for (const auto& [key, value] : p.sweepValues)
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
  return keys;
}

// The columns that tell the points apart: the variant (if the study has
// variants) and the swept keys; found once per report, not per point.
struct LabelColumns {
  bool variants;
  std::vector<std::string> keys;
  std::vector<std::string> headers() const {
    std::vector<std::string> h = keys;
    if (variants) h.insert(h.begin(), "variant");
    return h;
  }
  std::vector<std::string> cells(const CollectiveStudyPoint& p) const {
    std::vector<std::string> c;
    if (variants) c.push_back(p.variant);
    for (const std::string& key : keys) {
      auto it = std::find_if(p.sweepValues.begin(), p.sweepValues.end(), [&](const auto& kv) { return kv.first == key; });
      c.push_back(it == p.sweepValues.end() ? "" : it->second);
    }
    return c;
  }
};
LabelColumns labelColumns(const CollectiveStudyReport& r) { return {hasVariants(r), sweepKeys(r)}; }

// The row that finished first among the point's rows of the same size
// (ties: the first listed).
bool isFastest(const CollectiveStudyPoint& p, const StudyRow& row) {
  if (!row.error.empty()) return false;
  for (const StudyRow& other : p.rows)
    if (other.error.empty() && other.size == row.size && other.run.execution.finish < row.run.execution.finish)
      return false;
  for (const StudyRow& other : p.rows)
    if (other.error.empty() && other.size == row.size && other.run.execution.finish == row.run.execution.finish)
      return &other == &row;
  return true;
}

std::vector<std::string> algorithms(const CollectiveStudyReport& r) {
  std::vector<std::string> names;
  for (const auto& p : r.points)
    for (const auto& row : p.rows)
      if (std::find(names.begin(), names.end(), row.algorithm) == names.end()) names.push_back(row.algorithm);
  return names;
}

// The cluster, or the first point's when the sweep changes it.
std::string clusterLine(const CollectiveStudyReport& r) {
  const Report& h = r.header;
  bool varies = std::any_of(r.points.begin(), r.points.end(), [&](const auto& p) {
    return p.loadError.empty() && (p.cluster != h.clusterName || p.clusterDescription != h.clusterDescription);
  });
  return h.clusterName + " (" + (varies ? "changed by the sweep; the first point: " : "") + h.clusterDescription + ")";
}

std::string headerLines(const CollectiveStudyReport& r, const std::string& what) {
  const Report& h = r.header;
  std::ostringstream os;
  os << "# collsim " << h.command << ": " << h.name << " (" << r.points.size() << " points; " << what << ")\n";
  if (!h.description.empty()) os << "# " << h.description << "\n";
  os << "# cluster: " << clusterLine(r) << "\n";
  os << "# " << (h.fidelity == Fidelity::Packet ? "packet level" : "segment: " + formatBytes(h.segment)) << "\n";
  return os.str();
}

// The scenario's notes (its first point's), then what did not run, under the table.
std::string notesAndErrors(const CollectiveStudyReport& r, bool md) {
  std::string out;
  for (const auto& n : r.header.notes) out += (md ? "\nNote: " : "# note: ") + n + "\n";
  for (const auto& p : r.points) {
    std::string label = studyPointLabel(p.variant, p.sweepValues);
    if (!p.loadError.empty()) out += (md ? "\nFailed: " : "# failed: ") + label + ": " + p.loadError + "\n";
    for (const auto& row : p.rows)
      if (!row.error.empty())
        out += (md ? "\nFailed: " : "# failed: ") + label + ", " + row.algorithm + " " + formatBytes(row.size) + ": " +
               row.error + "\n";
  }
  return out;
}

// One row per point and size, a time column per algorithm.
std::string sideBySide(const CollectiveStudyReport& r) {
  std::vector<std::string> algos = algorithms(r);
  const LabelColumns columns = labelColumns(r);
  std::vector<std::string> headers = columns.headers();
  headers.insert(headers.end(), {"ranks", "size"});
  for (const auto& a : algos) headers.push_back(a);
  headers.push_back("fastest");
  TextTable t(headers);
  for (const auto& p : r.points) {
    std::vector<std::string> label = columns.cells(p);
    if (!p.loadError.empty()) {
      std::vector<std::string> row = label;
      row.insert(row.end(), {"-", "-"});
      row.insert(row.end(), algos.size(), "-");
      row.push_back("failed");
      t.add(row);
      continue;
    }
    std::vector<Bytes> sizes;
    for (const auto& row : p.rows)
      if (std::find(sizes.begin(), sizes.end(), row.size) == sizes.end()) sizes.push_back(row.size);
    for (Bytes size : sizes) {
      std::vector<std::string> cells = label;
      cells.insert(cells.end(), {std::to_string(p.ranks), formatBytes(size)});
      std::string fastest;
      for (const auto& a : algos) {
        auto it = std::find_if(p.rows.begin(), p.rows.end(), [&](const auto& x) { return x.algorithm == a && x.size == size; });
        if (it == p.rows.end()) cells.push_back("-");
        else if (!it->error.empty()) cells.push_back("failed");
        else {
          bool best = isFastest(p, *it);
          if (best) fastest = a;
          cells.push_back(fixed(it->run.timeUs(), 3) + (best ? "*" : ""));
        }
      }
      cells.push_back(fastest);
      t.add(cells);
    }
  }
  return headerLines(r, "time_us per algorithm; * = fastest") + t.text() + notesAndErrors(r, false);
}

std::vector<std::string> longHeaders(const CollectiveStudyReport& r) {
  const LabelColumns columns = labelColumns(r);
  std::vector<std::string> headers = columns.headers();
  for (const std::string& c : collectiveCsvHeader()) headers.push_back(c);
  headers.insert(headers.end(), {"status", "error"});
  return headers;
}

// Tidy long form: one record per point x algorithm x size.
std::vector<std::vector<std::string>> longRows(const CollectiveStudyReport& r) {
  std::vector<std::vector<std::string>> rows;
  const LabelColumns columns = labelColumns(r);
  const std::size_t resultColumns = collectiveCsvHeader().size();
  for (const auto& p : r.points) {
    std::vector<std::string> label = columns.cells(p);
    auto failed = [&](const std::string& algorithm, const std::string& bytes, const std::string& error) {
      std::vector<std::string> cells = label;
      std::vector<std::string> result(resultColumns);
      result[1] = algorithm, result[2] = std::to_string(p.ranks), result[3] = bytes;
      cells.insert(cells.end(), result.begin(), result.end());
      cells.insert(cells.end(), {"failed", error});
      rows.push_back(cells);
    };
    if (!p.loadError.empty()) failed("", "", p.loadError);
    for (const auto& row : p.rows) {
      if (!row.error.empty()) {
        failed(row.algorithm, std::to_string(row.size), row.error);
        continue;
      }
      std::vector<std::string> cells = label;
      for (std::string& c : collectiveCsvCells(row.run, isFastest(p, row))) cells.push_back(std::move(c));
      cells.insert(cells.end(), {"ok", ""});
      rows.push_back(cells);
    }
  }
  return rows;
}

std::string csv(const CollectiveStudyReport& r) {
  std::string out = csvRow(longHeaders(r));
  for (const auto& row : longRows(r)) out += csvRow(row);
  return out;
}

std::string markdown(const CollectiveStudyReport& r) {
  // The columns a reader wants; CSV and JSON carry the rest.
  const LabelColumns columns = labelColumns(r);
  std::vector<std::string> headers = columns.headers();
  headers.insert(headers.end(), {"op", "algorithm", "ranks", "size", "time_us", "busbw_GB/s", "fastest"});
  TextTable t(headers);
  for (const auto& p : r.points) {
    std::vector<std::string> label = columns.cells(p);
    if (!p.loadError.empty()) {
      std::vector<std::string> cells = label;
      cells.insert(cells.end(), {"", "", "", "", "failed", "", ""});
      t.add(cells);
    }
    for (const auto& row : p.rows) {
      std::vector<std::string> cells = label;
      if (!row.error.empty()) {
        cells.insert(cells.end(), {"", row.algorithm, std::to_string(p.ranks), formatBytes(row.size), "failed", "", ""});
      } else {
        const CollectiveRun& x = row.run;
        cells.insert(cells.end(), {collectiveName(x.op), x.algorithm, std::to_string(x.ranks), formatBytes(x.bytes),
                                   fixed(x.timeUs(), 3), fixed(x.busbwGBps(), 3), isFastest(p, row) ? "yes" : ""});
      }
      t.add(cells);
    }
  }
  const Report& h = r.header;
  return "**" + h.name + "** on " + clusterLine(r) + ", " +
         std::to_string(r.points.size()) + " points\n\n" + t.markdown() + notesAndErrors(r, true);
}

std::string studyJson(const CollectiveStudyReport& r) {
  const Report& h = r.header;
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& p : r.points) {
    nlohmann::ordered_json sweep = nlohmann::ordered_json::object();
    for (const auto& [key, value] : p.sweepValues) sweep[key] = value;
    nlohmann::ordered_json label = {{"variant", p.variant}, {"sweep", sweep}, {"cluster", p.cluster}};
    if (!p.loadError.empty()) {
      nlohmann::ordered_json entry = label;
      entry["status"] = "failed";
      entry["error"] = p.loadError;
      results.push_back(entry);
    }
    for (const auto& row : p.rows) {
      nlohmann::ordered_json entry = label;
      entry["status"] = row.error.empty() ? "ok" : "failed";
      if (!row.error.empty()) {
        entry.update({{"algorithm", row.algorithm}, {"ranks", p.ranks}, {"bytes", row.size}, {"error", row.error}});
      } else {
        entry.update(collectiveRunJson(row.run, isFastest(p, row)));
      }
      results.push_back(entry);
    }
  }
  nlohmann::ordered_json doc = {{"tool", "collsim"},
                                {"command", h.command},
                                {"name", h.name},
                                {"cluster", {{"name", h.clusterName}, {"description", h.clusterDescription}}},
                                {"fidelity", fidelityName(h.fidelity)},
                                {"segment_bytes", h.segment},
                                {"seed", h.seed},
                                {"sweep_keys", sweepKeys(r)},
                                {"points", r.points.size()},
                                {"failed", r.failedRows()},
                                {"results", std::move(results)}};
  if (!r.header.notes.empty()) doc["notes"] = r.header.notes;
  return doc.dump(2) + "\n";
}

} // namespace

std::string formatCollectiveStudy(const CollectiveStudyReport& report, OutputFormat format) {
  switch (format) {
  case OutputFormat::Table: return sideBySide(report);
  case OutputFormat::Json: return studyJson(report);
  case OutputFormat::Csv: return csv(report);
  case OutputFormat::Markdown: return markdown(report);
  case OutputFormat::Dot:
  case OutputFormat::Junit: break; // not a row format (common_options.h refuses it)
  }
  throw std::logic_error(std::string("a study report has no ") + outputFormatName(format) + " form");
}

} // namespace collsim
