#include "sim/study/study_journal.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/fingerprint.h"
#include "sim/core/input_error.h"
#include "sim/core/printable.h"
#include "sim/study/output_file.h"

namespace collsim {
namespace {

using nlohmann::json;

// A figure read back as written, or refused: an integer field holds an
// integer in its type's range, a real one a finite number, a string a
// string (nlohmann would cast 1e300 into an int, which is undefined).
struct Checked {
  const json& j;
  template <typename T>
  operator T() const {
    if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) throw std::invalid_argument("not a boolean");
      return j.get<bool>();
    } else if constexpr (std::is_integral_v<T>) {
      if (j.is_number_unsigned()) {
        std::uint64_t v = j.get<std::uint64_t>();
        if (v > std::uint64_t(std::numeric_limits<T>::max())) throw std::invalid_argument("out of range");
        return T(v);
      }
      if (!j.is_number_integer()) throw std::invalid_argument("not an integer");
      std::int64_t v = j.get<std::int64_t>();
      if (v < 0 && (std::is_unsigned_v<T> || v < std::int64_t(std::numeric_limits<T>::min())))
        throw std::invalid_argument("out of range");
      if (v > 0 && std::uint64_t(v) > std::uint64_t(std::numeric_limits<T>::max())) throw std::invalid_argument("out of range");
      return T(v);
    } else {
      static_assert(std::is_floating_point_v<T>);
      if (!j.is_number() || !std::isfinite(j.get<double>())) throw std::invalid_argument("not a finite number");
      return T(j.get<double>());
    }
  }
};
Checked num(const json& j, std::size_t i) { return {j.at(i)}; }
Checked field(const json& j, const char* key) { return {j.at(key)}; }
std::string textOf(const json& j) {
  if (!j.is_string()) throw std::invalid_argument("not a string");
  return j.get<std::string>();
}
LinkTier tierOf(const json& j) {
  if (auto tier = tierOfKey(textOf(j))) return *tier;
  throw std::invalid_argument("not a link tier");
}

json metricsJson(const NetworkMetrics& m) {
  json links = json::array(), busiest = json::array();
  for (const auto& l : m.links)
    links.push_back({tierKey(l.tier), l.channels, l.meanUtilization, l.maxUtilization, l.goodputOfLineRate, l.payload, l.wire, l.name});
  for (const auto& b : m.busiest) busiest.push_back({b.name, b.utilization, b.payload});
  return {{"fidelity", m.fidelity}, {"links", links}, {"busiest", busiest},
          {"counts", {m.packets, m.packetHops, m.queueP50, m.queueP99, m.queueMax, m.ecnMarks, m.cnps, m.drops,
                      m.retransmittedPackets, m.timeouts, m.pauseFrames, m.pauseTime, m.latencyP50, m.latencyP99,
                      m.latencyP999, m.messages}}};
}

NetworkMetrics metricsFrom(const json& j) {
  NetworkMetrics m;
  m.fidelity = textOf(j.at("fidelity"));
  for (const auto& l : j.at("links"))
    m.links.push_back({tierOf(l.at(0)), textOf(l.at(7)), num(l, 1), num(l, 2), num(l, 3), num(l, 4), num(l, 5), num(l, 6)});
  for (const auto& b : j.at("busiest")) m.busiest.push_back({textOf(b.at(0)), num(b, 1), num(b, 2)});
  const json& c = j.at("counts");
  m.packets = num(c, 0);
  m.packetHops = num(c, 1);
  m.queueP50 = num(c, 2);
  m.queueP99 = num(c, 3);
  m.queueMax = num(c, 4);
  m.ecnMarks = num(c, 5);
  m.cnps = num(c, 6);
  m.drops = num(c, 7);
  m.retransmittedPackets = num(c, 8);
  m.timeouts = num(c, 9);
  m.pauseFrames = num(c, 10);
  m.pauseTime = num(c, 11);
  m.latencyP50 = num(c, 12);
  m.latencyP99 = num(c, 13);
  m.latencyP999 = num(c, 14);
  m.messages = num(c, 15);
  return m;
}

// The parallel layout and the breakdown of the step (null without a layout).
json layoutJson(const StepResult& s) {
  if (!s.layout) return nullptr;
  const ParallelLayout& l = *s.layout;
  const StepBreakdown& b = s.breakdown;
  return {{l.tp, l.pp, l.dp, l.zero, l.microBatches, int(l.schedule), l.sequenceParallel,
           std::string(l.order.begin(), l.order.end()), l.ep, l.expertImbalance, l.virtualStages, l.cp},
          s.replicas,
          {b.compute, b.tensorParallel, b.pipeline, b.bubble, b.dataParallel, b.optimizer, b.expertParallel,
           b.contextParallel}};
}

void layoutFrom(const json& j, StepResult& s) {
  if (j.is_null()) return;
  const json& l = j.at(0);
  ParallelLayout layout;
  layout.tp = num(l, 0), layout.pp = num(l, 1), layout.dp = num(l, 2), layout.zero = num(l, 3);
  layout.microBatches = num(l, 4);
  int schedule = num(l, 5);
  if (schedule < 0 || schedule > int(PipelineKind::Interleaved)) throw std::invalid_argument("no such schedule");
  layout.schedule = PipelineKind(schedule);
  layout.sequenceParallel = num(l, 6);
  std::string order = textOf(l.at(7));
  if (order.size() == 3) layout.order = {order.at(0), 'c', order.at(1), order.at(2)}; // journals before CP
  if (order.size() == 4) layout.order = {order.at(0), order.at(1), order.at(2), order.at(3)};
  if (l.size() > 9) layout.ep = num(l, 8), layout.expertImbalance = num(l, 9);
  if (l.size() > 10) layout.virtualStages = num(l, 10);
  if (l.size() > 11) layout.cp = num(l, 11);
  s.layout = layout;
  s.replicas = num(j, 1);
  const json& b = j.at(2);
  s.breakdown = {num(b, 0), num(b, 1), b.size() > 6 ? Time(num(b, 6)) : 0, num(b, 2), num(b, 3), num(b, 4), num(b, 5),
                 b.size() > 7 ? Time(num(b, 7)) : 0};
}

json stepJson(const StepResult& s) {
  json buckets = json::array();
  for (const auto& b : s.buckets) buckets.push_back({b.bytes, b.algorithm, b.ready, b.start, b.end});
  const MemoryBreakdown& m = s.memory;
  return {{"times", {s.ranks, s.microBatch, s.accumulation, s.iteration, s.forward, s.backward, s.optimizer, s.compute,
                     s.communication, s.exposed}},
          {"buckets", buckets},
          {"memory", {m.weights, m.masterWeights, m.gradients, m.optimizerState, m.accumulationBuffer, m.activations,
                      m.bucketBuffers, m.communicatorBuffers}},
          {"device_memory", s.deviceMemory}, {"events", s.events}, {"bytes_sent", s.bytesSent},
          {"work", {s.flopsPerSample, s.devicePeakFlops, s.tokensPerSample}},
          {"network", metricsJson(s.network)},
          {"layout", layoutJson(s)},
          {"symmetry", {s.simulatedRanks, s.symmetry}}};
}

StepResult stepFrom(const json& j) {
  StepResult s;
  const json& t = j.at("times");
  s.ranks = num(t, 0);
  s.microBatch = num(t, 1);
  s.accumulation = num(t, 2);
  s.iteration = num(t, 3);
  s.forward = num(t, 4);
  s.backward = num(t, 5);
  s.optimizer = num(t, 6);
  s.compute = num(t, 7);
  s.communication = num(t, 8);
  s.exposed = num(t, 9);
  for (const auto& b : j.at("buckets")) s.buckets.push_back({num(b, 0), textOf(b.at(1)), num(b, 2), num(b, 3), num(b, 4)});
  const json& m = j.at("memory");
  s.memory = {num(m, 0), num(m, 1), num(m, 2), num(m, 3), num(m, 4), num(m, 5), num(m, 6), num(m, 7)};
  s.deviceMemory = field(j, "device_memory");
  s.events = field(j, "events");
  s.bytesSent = field(j, "bytes_sent");
  if (j.contains("work")) { // journals before MFU had none
    const json& w = j.at("work");
    s.flopsPerSample = num(w, 0);
    s.devicePeakFlops = num(w, 1);
    s.tokensPerSample = num(w, 2);
  }
  s.network = metricsFrom(j.at("network"));
  if (j.contains("layout")) layoutFrom(j.at("layout"), s); // journals before layouts had none
  if (j.contains("symmetry")) { // journals before folded replicas had none
    const json& f = j.at("symmetry");
    s.simulatedRanks = num(f, 0);
    s.symmetry = textOf(f.at(1));
  }
  return s;
}

bool writeLine(int fd, const std::string& line) { return writeFully(fd, line + "\n"); }

} // namespace

std::string trainingPointRecord(const TrainingPoint& p) {
  return json{{"algorithm", p.algorithm}, {"status", p.status}, {"error", p.error}, {"step", stepJson(p.step)}}.dump();
}

TrainingPoint trainingPointFromRecord(const std::string& text) {
  json j = json::parse(text);
  TrainingPoint p;
  p.algorithm = textOf(j.at("algorithm"));
  p.status = textOf(j.at("status"));
  p.error = textOf(j.at("error"));
  p.step = stepFrom(j.at("step"));
  return p;
}

namespace {

// The journal's text, read without following a symlink or waiting on a
// FIFO planted at its name: only a regular file is read.
std::string readJournal(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw UsageError("--resume: no partial results at " + path + " (" + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UsageError("--resume: " + path + ": the partial results file is not a regular file");
  }
  if (st.st_size > off_t(kMaxJournalBytes)) {
    ::close(fd);
    throw UsageError("--resume: " + path + " holds " + std::to_string(st.st_size >> 20) + " MiB, more than the " +
                     std::to_string(kMaxJournalBytes >> 20) + " MiB a journal may; remove it or run without --resume");
  }
  std::string text;
  char buffer[1 << 16];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw UsageError("--resume: cannot read " + path + ": " + std::strerror(errno));
    }
    text.append(buffer, std::size_t(n));
  }
  ::close(fd);
  return text;
}

// A name as collsim writes one: printable, no control characters (a
// newline would start a row of its own in a table).
bool printableName(const std::string& name) {
  return std::none_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

// A record's figures must be ones a run of its point can have: the
// algorithm the key names, a layout of positive factors and a schedule
// collsim has, no negative time, no name that is not one.
bool plausible(const TrainingPoint& p, const std::string& key) {
  const StepResult& s = p.step;
  const std::string algorithm = key.substr(key.rfind('\x1f') + 1);
  if (p.algorithm != algorithm && p.algorithm.rfind(algorithm + ": ", 0) != 0) return false;
  bool names = printableName(p.algorithm) && printableName(p.status) && printableName(p.error) &&
               printableName(s.network.fidelity) && printableName(s.symmetry) && s.simulatedRanks >= 0 &&
               s.simulatedRanks <= s.ranks;
  for (const auto& b : s.buckets) names = names && printableName(b.algorithm) && b.ready >= 0 && b.start >= 0 && b.end >= 0;
  for (const auto& l : s.network.links) names = names && printableName(l.name);
  for (const auto& b : s.network.busiest) names = names && printableName(b.name);
  if (s.layout) {
    const ParallelLayout& l = *s.layout;
    if (l.tp < 1 || l.pp < 1 || l.dp < 1 || l.cp < 1 || l.ep < 1 || l.microBatches < 1 || l.virtualStages < 1 ||
        l.zero < 0 || l.zero > 3)
      return false;
  }
  const StepBreakdown& b = s.breakdown;
  for (Time t : {b.compute, b.tensorParallel, b.pipeline, b.bubble, b.dataParallel, b.optimizer, b.expertParallel,
                 b.contextParallel})
    if (t < 0) return false;
  return names && s.ranks >= 1 && s.microBatch >= 1 && s.accumulation >= 1 && s.iteration >= 0 && s.forward >= 0 &&
         s.backward >= 0 && s.optimizer >= 0 && s.compute >= 0 && s.communication >= 0 && s.exposed >= 0 &&
         !p.algorithm.empty();
}

// What ties a record's point to its key: a swapped or edited key no longer
// matches (a damaged record, not another point's result).
std::string recordCheck(const std::string& key, const std::string& point) {
  return Fingerprint().add(key).add(point).hex();
}

// The header's list of the files the study read, and the check that the
// run resuming it reads the same: the first that differs is named.
json inputsJson(const std::vector<InputRead>& inputs) {
  json list = json::array();
  for (const InputRead& in : inputs) list.push_back({in.absolute, in.hash});
  return list;
}

void refuseChangedInputs(const json& header, const std::vector<InputRead>& now, const std::string& path) {
  std::map<std::string, std::string> then;
  if (header.contains("inputs") && header["inputs"].is_array())
    for (const json& in : header["inputs"])
      if (in.is_array() && in.size() == 2 && in[0].is_string() && in[1].is_string()) then[in[0]] = in[1];
  auto refuse = [&](const std::string& file, const std::string& what) {
    throw UsageError("--resume: " + path + ": " + printable(file) + " " + what +
                     " since these partial results were written, so they may not be this study's; remove " + path +
                     " (or run without --resume) to start over");
  };
  for (const InputRead& in : now) {
    auto it = then.find(in.absolute);
    if (it == then.end()) refuse(in.absolute, "(" + in.role + ") is read now, and was not");
    else if (it->second != in.hash) refuse(in.absolute, "(" + in.role + ") changed");
    else then.erase(it);
  }
  if (!then.empty()) refuse(then.begin()->first, "is no longer read");
}

} // namespace

JournalContents parseJournal(const std::string& text, const std::string& fingerprint, const std::string& path,
                             const std::vector<InputRead>& inputs) {
  JournalContents out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  json header = json::parse(line, nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("collsim_journal"))
    throw UsageError("--resume: " + path + " is not a collsim journal (its first line is no journal header); remove "
                     "it or run without --resume");
  if (header["collsim_journal"] != kJournalVersion)
    throw UsageError("--resume: " + path + " is a journal of format " + printable(header["collsim_journal"].dump()) +
                     ", and this collsim reads format " + std::to_string(kJournalVersion) +
                     " only; remove it or run without --resume");
  refuseChangedInputs(header, inputs, path);
  if (!header.contains("study") || header["study"] != fingerprint)
    throw UsageError("--resume: " + path + " holds partial results of another study (--set, the "
                     "environment's HCCL settings, the seed or collsim changed); remove it or run without --resume");
  while (std::getline(in, line)) {
    try {
      if (line.size() > kMaxJournalRecordBytes) throw std::invalid_argument("too long");
      json rec = json::parse(line, nullptr, false);
      if (rec.is_discarded() || !rec.is_object()) throw std::invalid_argument("not a record");
      std::string key = textOf(rec.at("key")), point = rec.at("point").dump();
      if (textOf(rec.at("check")) != recordCheck(key, point)) throw std::invalid_argument("key and point do not match");
      TrainingPoint p = trainingPointFromRecord(point);
      if (!plausible(p, key)) throw std::invalid_argument("implausible");
      out.recovered[key] = p;
      out.records.push_back(line);
    } catch (const std::exception&) {
      ++out.skipped; // a torn last line, or a damaged record: its point runs again
    }
  }
  return out;
}

StudyJournal::StudyJournal(const std::string& path, const std::string& fingerprint, bool resume,
                           const std::vector<InputRead>& inputs)
    : path_(path), lock_(path) {
  if (resume) read_ = parseJournal(readJournal(path), fingerprint, path, inputs);
  // Written anew, like --out: whatever regular file holds the name is
  // unlinked first (another hard link to it keeps its content), anything
  // else there is refused, and the new file is created exclusively (a
  // symlink or FIFO planted meanwhile makes the creation fail, not hang).
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) throw UsageError(path + ": the partial results file is not a regular file");
    if (::unlink(path.c_str()) != 0)
      throw UsageError("cannot replace partial results at " + path + ": " + std::strerror(errno));
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd_ < 0) throw UsageError("cannot write partial results to " + path + ": " + std::strerror(errno));
  bool written = writeLine(
      fd_, json{{"collsim_journal", kJournalVersion}, {"study", fingerprint}, {"inputs", inputsJson(inputs)}}.dump());
  for (const std::string& record : read_.records) written = written && writeLine(fd_, record);
  if (!written) throw UsageError("cannot write partial results to " + path + ": " + std::strerror(errno));
}

StudyJournal::~StudyJournal() {
  if (fd_ >= 0) ::close(fd_);
}

std::string StudyJournal::append(const std::string& key, const TrainingPoint& point) {
  if (fd_ < 0) return "";
  json record = json::parse(trainingPointRecord(point));
  // A full disk loses the journal, not the study: said once.
  if (!writeLine(fd_, json{{"key", key}, {"point", record}, {"check", recordCheck(key, record.dump())}}.dump())) {
    std::string why = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return "cannot write partial results to " + path_ + " (" + why +
           "): the study goes on, but an interruption now loses what it did";
  }
  return "";
}

void StudyJournal::finish() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

} // namespace collsim
