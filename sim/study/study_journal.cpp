#include "sim/study/study_journal.h"

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/core/input_error.h"
#include "sim/study/output_file.h"

namespace collsim {
namespace {

using nlohmann::json;

json metricsJson(const NetworkMetrics& m) {
  json links = json::array(), busiest = json::array();
  for (const auto& l : m.links)
    links.push_back({l.type, l.channels, l.meanUtilization, l.maxUtilization, l.goodputOfLineRate, l.payload, l.wire});
  for (const auto& b : m.busiest) busiest.push_back({b.name, b.utilization, b.payload});
  return {{"fidelity", m.fidelity}, {"links", links}, {"busiest", busiest},
          {"counts", {m.packets, m.packetHops, m.queueP50, m.queueP99, m.queueMax, m.ecnMarks, m.cnps, m.drops,
                      m.retransmittedPackets, m.timeouts, m.pauseFrames, m.pauseTime, m.latencyP50, m.latencyP99,
                      m.latencyP999, m.messages}}};
}

NetworkMetrics metricsFrom(const json& j) {
  NetworkMetrics m;
  m.fidelity = j.at("fidelity").get<std::string>();
  for (const auto& l : j.at("links"))
    m.links.push_back({l.at(0).get<std::string>(), l.at(1).get<int>(), l.at(2).get<double>(), l.at(3).get<double>(),
                       l.at(4).get<double>(), l.at(5).get<Bytes>(), l.at(6).get<Bytes>()});
  for (const auto& b : j.at("busiest")) m.busiest.push_back({b.at(0).get<std::string>(), b.at(1).get<double>(), b.at(2).get<Bytes>()});
  const json& c = j.at("counts");
  m.packets = c.at(0);
  m.packetHops = c.at(1);
  m.queueP50 = c.at(2);
  m.queueP99 = c.at(3);
  m.queueMax = c.at(4);
  m.ecnMarks = c.at(5);
  m.cnps = c.at(6);
  m.drops = c.at(7);
  m.retransmittedPackets = c.at(8);
  m.timeouts = c.at(9);
  m.pauseFrames = c.at(10);
  m.pauseTime = c.at(11);
  m.latencyP50 = c.at(12);
  m.latencyP99 = c.at(13);
  m.latencyP999 = c.at(14);
  m.messages = c.at(15);
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
  layout.tp = l.at(0), layout.pp = l.at(1), layout.dp = l.at(2), layout.zero = l.at(3), layout.microBatches = l.at(4);
  layout.schedule = PipelineKind(l.at(5).get<int>());
  layout.sequenceParallel = l.at(6);
  std::string order = l.at(7);
  if (order.size() == 3) layout.order = {order.at(0), 'c', order.at(1), order.at(2)}; // journals before CP
  if (order.size() == 4) layout.order = {order.at(0), order.at(1), order.at(2), order.at(3)};
  if (l.size() > 9) layout.ep = l.at(8), layout.expertImbalance = l.at(9);
  if (l.size() > 10) layout.virtualStages = l.at(10);
  if (l.size() > 11) layout.cp = l.at(11);
  s.layout = layout;
  s.replicas = j.at(1);
  const json& b = j.at(2);
  s.breakdown = {b.at(0), b.at(1), b.size() > 6 ? b.at(6).get<Time>() : 0, b.at(2), b.at(3), b.at(4), b.at(5),
                 b.size() > 7 ? b.at(7).get<Time>() : 0};
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
          {"layout", layoutJson(s)}};
}

StepResult stepFrom(const json& j) {
  StepResult s;
  const json& t = j.at("times");
  s.ranks = t.at(0);
  s.microBatch = t.at(1);
  s.accumulation = t.at(2);
  s.iteration = t.at(3);
  s.forward = t.at(4);
  s.backward = t.at(5);
  s.optimizer = t.at(6);
  s.compute = t.at(7);
  s.communication = t.at(8);
  s.exposed = t.at(9);
  for (const auto& b : j.at("buckets"))
    s.buckets.push_back({b.at(0).get<Bytes>(), b.at(1).get<std::string>(), b.at(2).get<Time>(), b.at(3).get<Time>(), b.at(4).get<Time>()});
  const json& m = j.at("memory");
  s.memory = {m.at(0), m.at(1), m.at(2), m.at(3), m.at(4), m.at(5), m.at(6), m.at(7)};
  s.deviceMemory = j.at("device_memory");
  s.events = j.at("events");
  s.bytesSent = j.at("bytes_sent");
  if (j.contains("work")) { // journals before MFU had none
    const json& w = j.at("work");
    s.flopsPerSample = w.at(0);
    s.devicePeakFlops = w.at(1);
    s.tokensPerSample = w.at(2);
  }
  s.network = metricsFrom(j.at("network"));
  if (j.contains("layout")) layoutFrom(j.at("layout"), s); // journals before layouts had none
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
  p.algorithm = j.at("algorithm");
  p.status = j.at("status");
  p.error = j.at("error");
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

// A record's figures must be ones a run can have.
bool plausible(const TrainingPoint& p) {
  const StepResult& s = p.step;
  return s.ranks >= 1 && s.microBatch >= 1 && s.accumulation >= 1 && s.iteration >= 0 && s.forward >= 0 &&
         s.backward >= 0 && s.optimizer >= 0 && s.compute >= 0 && s.communication >= 0 && !p.algorithm.empty();
}

} // namespace

JournalContents parseJournal(const std::string& text, const std::string& fingerprint, const std::string& path) {
  JournalContents out;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  json header = json::parse(line, nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("study") || header["study"] != fingerprint)
    throw UsageError("--resume: " + path + " holds partial results of another study (the scenario, --set, HCCL "
                     "settings, seed or collsim changed); remove it or run without --resume");
  while (std::getline(in, line)) {
    json rec = json::parse(line, nullptr, false);
    try {
      if (rec.is_discarded() || !rec.is_object()) throw std::invalid_argument("not a record");
      TrainingPoint p = trainingPointFromRecord(rec.at("point").dump());
      if (!plausible(p)) throw std::invalid_argument("implausible");
      out.recovered[rec.at("key").get<std::string>()] = p;
      out.records.push_back(line);
    } catch (const std::exception&) {
      ++out.skipped; // a torn last line, or a damaged record: its point runs again
    }
  }
  return out;
}

StudyJournal::StudyJournal(const std::string& path, const std::string& fingerprint, bool resume) : path_(path) {
  if (resume) read_ = parseJournal(readJournal(path), fingerprint, path);
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
  bool written = writeLine(fd_, json{{"collsim_journal", 1}, {"study", fingerprint}}.dump());
  for (const std::string& record : read_.records) written = written && writeLine(fd_, record);
  if (!written) throw UsageError("cannot write partial results to " + path + ": " + std::strerror(errno));
}

StudyJournal::~StudyJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void StudyJournal::append(const std::string& key, const TrainingPoint& point) {
  if (fd_ < 0) return;
  // A full disk loses the journal, not the study.
  if (!writeLine(fd_, json{{"key", key}, {"point", json::parse(trainingPointRecord(point))}}.dump())) {
    ::close(fd_);
    fd_ = -1;
  }
}

void StudyJournal::finish() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(path_.c_str());
}

} // namespace collsim
