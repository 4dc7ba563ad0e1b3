// Test helpers: paths in the source tree, shipped clusters, and the
// collsim command line called in-process.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/cli.h"
#include "sim/config/cluster_config.h"
#include "topologies/server_shapes.h"

namespace collsim::testing {

// A path built, not concatenated: GCC 12 at -O1 reports a false
// -Warray-bounds on `std::string(LITERAL) + "/"` for some literal lengths
// (a 16-character checkout path such as /check/work/main).
inline std::string source(const std::string& relative) {
  return (std::filesystem::path(COLLSIM_SOURCE_DIR) / relative).string();
}

// Under a sanitizer (10-30x slower) the exhaustive sweeps walk a sample of
// the shapes Release walks in full: the same code paths, a fraction of CI.
#if defined(COLLSIM_ASAN) || defined(COLLSIM_TSAN)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// 1..last, or under a sanitizer 1..12 and the counts around each power of
// two above it up to `last` (where halving-doubling and trees change shape).
inline std::vector<int> sweepCounts(int last) {
  std::vector<int> out;
  for (int p = 1; p <= last; ++p) {
    bool nearPowerOfTwo = false;
    for (int two = 16; two / 2 <= last; two *= 2) nearPowerOfTwo |= p >= two - 1 && p <= two + 1;
    if (!kSanitized || p <= 12 || nearPowerOfTwo) out.push_back(p);
  }
  return out;
}

// One server of p devices in an HCCS ring, 12 GB/s and 1 us per link, no
// overheads (the closed forms' cluster).
inline Cluster hccsRing(int p) {
  ServerParams s;
  s.devices = p;
  s.shape = HccsShape::Ring;
  s.hccs = {12'000'000'000ULL, 1'000'000};
  return buildServer(s);
}

// configs/clusters/atlas-2x8.yaml with `servers` servers.
inline Cluster atlasCluster(int servers) {
  return loadClusterFile(source("configs/clusters/atlas-2x8.yaml"), {"servers=" + std::to_string(servers)}).cluster;
}

// A number with 9 significant decimals, as a log would print it.
inline std::string fixedText(double v) {
  std::ostringstream os;
  os.precision(9);
  os << std::fixed << v;
  return os.str();
}

struct CliResult {
  int status;
  std::string out, err;
};

// Runs `collsim ARGS...`; captures standard output and error.
inline CliResult cli(std::vector<std::string> args) {
  args.insert(args.begin(), "collsim");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  int status = runCli(int(argv.size()), argv.data(), {out, err, false});
  return {status, out.str(), err.str()};
}

// The output without its provenance line ("# collsim VERSION: COMMAND"),
// which must be there.
inline std::string afterProvenance(const std::string& text) {
  if (text.rfind("# collsim ", 0) != 0) return "(no provenance line) " + text;
  return text.substr(text.find('\n') + 1);
}

// CSV as collsim writes it (RFC 4180: quoted fields may hold commas,
// quotes doubled), read by column name.
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // Leading "# ..." lines (collsim's provenance comment) are skipped.
  static Csv parse(std::string text) {
    while (text.rfind("#", 0) == 0) text.erase(0, text.find('\n') == std::string::npos ? text.size() : text.find('\n') + 1);
    Csv csv;
    std::vector<std::string> record;
    std::string field;
    bool quoted = false;
    auto endRecord = [&] {
      record.push_back(field);
      field.clear();
      if (csv.header.empty()) csv.header = record;
      else csv.rows.push_back(record);
      record.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (quoted) {
        if (c != '"') field += c;
        else if (i + 1 < text.size() && text[i + 1] == '"') field += '"', ++i;
        else quoted = false;
      } else if (c == '"') quoted = true;
      else if (c == ',') record.push_back(field), field.clear();
      else if (c == '\n') endRecord();
      else field += c;
    }
    if (!field.empty() || !record.empty()) endRecord();
    return csv;
  }
  // The cell of row `row` in column `name`; throws if there is no such column.
  const std::string& at(std::size_t row, const std::string& name) const {
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == name) return rows.at(row).at(c);
    throw std::runtime_error("no CSV column " + name);
  }
};

// A fresh folder of its own under the system's temporary folder, removed
// with everything in it at the end of the test (no fixed /tmp names).
class TempDir {
public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "collsim-test-XXXXXX").string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("mkdtemp failed");
    path_ = templ;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to NAME in the folder; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path_ / name, std::ios::binary) << text;
    return (path_ / name).string();
  }

private:
  std::filesystem::path path_;
};

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The lines of a text, without their newlines.
inline std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

} // namespace collsim::testing
