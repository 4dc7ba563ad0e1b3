#include "sim/config/schedule_file.h"

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "algorithms/check/symbolic_checker.h"
#include "sim/config/config_node.h"
#include "sim/config/input_file.h"

namespace collsim {
namespace {

constexpr double kMaxCheckerWords = 1 << 22; // 32 MiB of contributor sets

const char* const kOpNames[] = {"send", "recv", "recv_reduce", "wait"};
const OpKind kOpKinds[] = {OpKind::Send, OpKind::Recv, OpKind::RecvReduce, OpKind::Wait};

const char* opName(OpKind k) {
  for (std::size_t i = 0; i < std::size(kOpKinds); ++i)
    if (kOpKinds[i] == k) return kOpNames[i];
  return "?";
}

struct Reader {
  ChunkedSchedule s;
  // Where each (stream, rank)'s steps are, for the checker's findings; and
  // the waits, whose stream is known to exist only at the end.
  std::map<std::pair<int, int>, ConfigNode> stepsAt;
  std::vector<std::pair<ConfigNode, int>> waits; // (the operation, its stream)

  Op readOp(const ConfigNode& n, int rank, int ownStream) {
    std::vector<ConfigNode> v = n.items();
    if (v.empty()) n.fail("an operation is [kind, peer, chunk(, chunks)] or [\"wait\", stream, steps]");
    std::string kind = v[0].choice({"send", "recv", "recv_reduce", "wait"});
    OpKind k = kOpKinds[std::find(std::begin(kOpNames), std::end(kOpNames), kind) - std::begin(kOpNames)];
    if (k == OpKind::Wait) {
      if (v.size() != 3) n.fail("a wait is [\"wait\", stream, steps]");
      int stream = int(v[1].integer(0, 63));
      if (stream == ownStream) v[1].fail("a stream waits for another stream, not for itself");
      waits.emplace_back(v[1], stream);
      return Op{OpKind::Wait, stream, std::uint64_t(v[2].integer(1, 1LL << 30)), 0};
    }
    if (v.size() != 3 && v.size() != 4) n.fail("a " + kind + " is [\"" + kind + "\", peer, chunk] or [\"" + kind + "\", peer, chunk, chunks]");
    int peer = int(v[1].integer(0, s.ranks - 1));
    if (peer == rank) v[1].fail("rank " + std::to_string(rank) + " names itself as its peer");
    // An empty range may sit at the end (chunk `chunks`, 0 chunks): a
    // pipeline's slices write their last, empty, piece so.
    auto first = std::uint64_t(v[2].integer(0, v.size() == 4 ? s.chunks : s.chunks - 1));
    auto count = v.size() == 4 ? std::uint64_t(v[3].integer(0, s.chunks - static_cast<long long>(first))) : 1;
    return Op{k, peer, first, count};
  }

  void readProgram(const ConfigNode& program) {
    for (const ConfigNode& entry : program.items()) {
      entry.allowDeclared(InputKind::Schedule, "program[]");
      int rank = int(entry.at("rank").integer(0, s.ranks - 1));
      int stream = entry.has("stream") ? int(entry.at("stream").integer(0, 63)) : 0;
      if (stepsAt.count({stream, rank})) entry.fail("rank " + std::to_string(rank) + " stream " + std::to_string(stream) + " appears twice");
      ConfigNode steps = entry.at("steps");
      stepsAt.emplace(std::pair{stream, rank}, steps);
      while (int(s.streams.size()) <= stream) s.streams.emplace_back(std::size_t(s.ranks));
      auto& out = s.streams[std::size_t(stream)][std::size_t(rank)];
      for (const ConfigNode& step : steps.items()) {
        out.emplace_back();
        for (const ConfigNode& op : step.items()) out.back().push_back(readOp(op, rank, stream));
      }
    }
    if (s.streams.empty()) program.fail("the program has no steps");
    for (const auto& [node, stream] : waits)
      if (stream >= int(s.streams.size()))
        node.fail("no stream " + std::to_string(stream) + " (the program has " + std::to_string(s.streams.size()) + ")");
  }

  // The checker's first finding, located at the steps it names when it
  // names a rank and a step ("rank 3 step 2: ...").
  [[noreturn]] void refuse(const CheckReport& report, const std::string& path) {
    const std::string& first = report.problems.front();
    std::string more = report.problems.size() > 1
                           ? " (and " + std::to_string(report.problems.size() - 1) + " more finding(s))"
                           : "";
    std::string message = "the symbolic checker refuses the schedule (an element is a chunk here): " + first + more;
    std::smatch m;
    if (std::regex_search(first, m, std::regex("rank (\\d+) step (\\d+)"))) {
      const int rank = std::stoi(m[1]), step = std::stoi(m[2]);
      for (const auto& [key, steps] : stepsAt)
        if (key.second == rank && step < int(steps.yaml().size())) steps.items()[std::size_t(step)].fail(message);
    }
    throw ConfigError(path + ": " + message);
  }
};

} // namespace

std::shared_ptr<const ChunkedSchedule> readScheduleFile(const std::string& path) {
  return readScheduleText(readInputFile(path, "a schedule file"), path);
}

std::string scheduleFileTooLarge(int ranks, int chunks) {
  // The checker holds a set of ranks per chunk of every rank's buffer.
  const double checkerWords = double(ranks) * chunks * ((ranks + 63) / 64);
  if (checkerWords <= kMaxCheckerWords) return "";
  return std::to_string(ranks) + " ranks of " + std::to_string(chunks) +
         " chunks are more than the symbolic checker holds (ranks x chunks x ranks / 64 up to " +
         std::to_string(std::llround(kMaxCheckerWords)) + ")";
}

std::shared_ptr<const ChunkedSchedule> readScheduleText(const std::string& text, const std::string& path) {
  auto origins = std::make_shared<ConfigOrigins>(path);
  ConfigNode root(parseYamlMapping(text, path, "a schedule file"), origins);
  root.allowDeclared(InputKind::Schedule, "");
  root.at("collsim_schedule").integer(1, 1);
  Reader r;
  if (auto n = root.find("name")) r.s.name = n->text();
  if (!parseCollective(root.at("collective").choice(collectiveNames()), r.s.op)) root.at("collective").fail("unknown");
  if (r.s.op == Collective::AllToAll) root.at("collective").fail("alltoall is not written as chunks (its buffer is an input and an output)");
  r.s.ranks = int(root.at("ranks").integer(1, 1 << 16));
  r.s.chunks = int(root.at("chunks").integer(1, 1 << 20));
  if (r.s.chunks % r.s.ranks != 0)
    root.at("chunks").fail("the chunks must be a multiple of the ranks (" + std::to_string(r.s.ranks) + "): each rank's block is cut into chunks / ranks");
  if (std::string why = scheduleFileTooLarge(r.s.ranks, r.s.chunks); !why.empty()) root.at("chunks").fail(why);
  if (auto n = root.find("root")) r.s.root = int(n->integer(0, r.s.ranks - 1));
  r.readProgram(root.at("program"));
  for (auto& stream : r.s.streams) stream.resize(std::size_t(r.s.ranks));
  auto s = std::make_shared<const ChunkedSchedule>(r.s);
  const CollectiveSpec spec = s->oneElementPerChunk();
  CheckReport report = checkSchedule(*scheduleOfChunks(s, GroupView::whole(spec)), spec);
  if (!report.ok()) r.refuse(report, path);
  return s;
}

std::string scheduleFileText(const ChunkedSchedule& s) {
  std::size_t values = 8;
  for (const auto& stream : s.streams)
    for (const auto& steps : stream) {
      values += 4 + steps.size();
      for (const auto& ops : steps)
        for (const Op& op : ops) values += op.kind == OpKind::Wait || op.bytes == 1 ? 4 : 5;
    }
  if (values > kMaxScheduleFileValues)
    throw InputError(s.name + " on " + std::to_string(s.ranks) + " ranks is " + std::to_string(values) +
                     " values; a schedule file holds at most " + std::to_string(kMaxScheduleFileValues) +
                     " (write it for fewer ranks)");
  std::ostringstream os;
  os << "{\"collsim_schedule\": 1, \"name\": " << nlohmann::json(s.name).dump() << ", \"collective\": \""
     << collectiveName(s.op) << "\",\n \"ranks\": " << s.ranks << ", \"chunks\": " << s.chunks;
  if (s.op == Collective::Broadcast || s.op == Collective::Reduce) os << ", \"root\": " << s.root;
  os << ",\n \"program\": [";
  const char* entrySep = "\n";
  for (std::size_t k = 0; k < s.streams.size(); ++k)
    for (int r = 0; r < s.ranks; ++r) {
      const auto& steps = s.streams[k][std::size_t(r)];
      if (steps.empty()) continue;
      os << entrySep << "  {\"rank\": " << r << ", \"stream\": " << k << ", \"steps\": [";
      entrySep = ",\n";
      for (std::size_t i = 0; i < steps.size(); ++i) {
        os << (i ? ",\n    [" : "\n    [");
        for (std::size_t j = 0; j < steps[i].size(); ++j) {
          const Op& op = steps[i][j];
          os << (j ? ", " : "") << "[\"" << opName(op.kind) << "\", " << op.peer << ", " << op.offset;
          if (op.kind != OpKind::Wait && op.bytes != 1) os << ", " << op.bytes;
          os << "]";
        }
        os << "]";
      }
      os << "]}";
    }
  os << "\n ]}\n";
  return os.str();
}

void registerScheduleFiles() {
  registerAlgorithmSource("file:", [](Collective op, const std::string& name) -> std::optional<AlgorithmEntry> {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const ChunkedSchedule>> read;
    const std::string path = name.substr(5);
    if (path.empty()) throw ConfigError("'file:' names no schedule file (file:PATH)");
    // A file rewritten since (a test's, a user's next attempt) is read again.
    std::error_code error;
    const auto written = std::filesystem::last_write_time(path, error).time_since_epoch().count();
    const std::string key = path + "\n" + std::to_string(written);
    std::shared_ptr<const ChunkedSchedule> s;
    {
      std::lock_guard lock(mutex);
      auto it = read.find(key);
      s = it != read.end() ? it->second : read.emplace(key, readScheduleFile(path)).first->second;
    }
    AlgorithmEntry e = chunkedEntry(s, name);
    if (s->op != op) { // the file's collective answers for no other one
      e.op = op;
      e.unsupported = [computes = std::string(collectiveName(s->op))](const CollectiveSpec& spec) {
        return "the schedule computes " + computes + ", not " + collectiveName(spec.op);
      };
    }
    return e;
  });
}

} // namespace collsim
