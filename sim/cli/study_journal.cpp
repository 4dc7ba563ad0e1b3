#include "sim/cli/study_journal.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "sim/cli/command.h"
#include "sim/cli/output_file.h"

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
    m.links.push_back({l[0].get<std::string>(), l[1].get<int>(), l[2].get<double>(), l[3].get<double>(),
                       l[4].get<double>(), l[5].get<Bytes>(), l[6].get<Bytes>()});
  for (const auto& b : j.at("busiest")) m.busiest.push_back({b[0].get<std::string>(), b[1].get<double>(), b[2].get<Bytes>()});
  const json& c = j.at("counts");
  m.packets = c[0];
  m.packetHops = c[1];
  m.queueP50 = c[2];
  m.queueP99 = c[3];
  m.queueMax = c[4];
  m.ecnMarks = c[5];
  m.cnps = c[6];
  m.drops = c[7];
  m.retransmittedPackets = c[8];
  m.timeouts = c[9];
  m.pauseFrames = c[10];
  m.pauseTime = c[11];
  m.latencyP50 = c[12];
  m.latencyP99 = c[13];
  m.latencyP999 = c[14];
  m.messages = c[15];
  return m;
}

// The parallel layout and the breakdown of the step (null without a layout).
json layoutJson(const StepResult& s) {
  if (!s.layout) return nullptr;
  const ParallelLayout& l = *s.layout;
  const StepBreakdown& b = s.breakdown;
  return {{l.tp, l.pp, l.dp, l.zero, l.microBatches, int(l.schedule), l.sequenceParallel,
           std::string(l.order.begin(), l.order.end()), l.ep, l.expertImbalance, l.virtualStages},
          s.replicas,
          {b.compute, b.tensorParallel, b.pipeline, b.bubble, b.dataParallel, b.optimizer, b.expertParallel}};
}

void layoutFrom(const json& j, StepResult& s) {
  if (j.is_null()) return;
  const json& l = j[0];
  ParallelLayout layout;
  layout.tp = l[0], layout.pp = l[1], layout.dp = l[2], layout.zero = l[3], layout.microBatches = l[4];
  layout.schedule = PipelineKind(l[5].get<int>());
  layout.sequenceParallel = l[6];
  std::string order = l[7];
  if (order.size() == 3) layout.order = {order[0], order[1], order[2]};
  if (l.size() > 9) layout.ep = l[8], layout.expertImbalance = l[9];
  if (l.size() > 10) layout.virtualStages = l[10];
  s.layout = layout;
  s.replicas = j[1];
  const json& b = j[2];
  s.breakdown = {b[0], b[1], b.size() > 6 ? b[6].get<Time>() : 0, b[2], b[3], b[4], b[5]};
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
  s.ranks = t[0];
  s.microBatch = t[1];
  s.accumulation = t[2];
  s.iteration = t[3];
  s.forward = t[4];
  s.backward = t[5];
  s.optimizer = t[6];
  s.compute = t[7];
  s.communication = t[8];
  s.exposed = t[9];
  for (const auto& b : j.at("buckets"))
    s.buckets.push_back({b[0].get<Bytes>(), b[1].get<std::string>(), b[2].get<Time>(), b[3].get<Time>(), b[4].get<Time>()});
  const json& m = j.at("memory");
  s.memory = {m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]};
  s.deviceMemory = j.at("device_memory");
  s.events = j.at("events");
  s.bytesSent = j.at("bytes_sent");
  if (j.contains("work")) { // journals before MFU had none
    const json& w = j.at("work");
    s.flopsPerSample = w[0];
    s.devicePeakFlops = w[1];
    s.tokensPerSample = w[2];
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

StudyJournal::StudyJournal(const std::string& path, const std::string& fingerprint, bool resume) : path_(path) {
  if (resume) {
    std::ifstream in(path);
    if (!in) throw UsageError("--resume: no partial results at " + path + " (" + std::strerror(errno) + ")");
    std::string line;
    std::getline(in, line);
    json header = json::parse(line, nullptr, false);
    if (header.is_discarded() || !header.contains("study") || header["study"] != fingerprint)
      throw UsageError("--resume: " + path + " holds partial results of another study (the scenario, --set, HCCL "
                       "settings, seed or collsim changed); remove it or run without --resume");
    while (std::getline(in, line)) {
      json rec = json::parse(line, nullptr, false);
      if (rec.is_discarded() || !rec.contains("key") || !rec.contains("point")) continue; // a torn last line
      try {
        recovered_[rec["key"].get<std::string>()] = trainingPointFromRecord(rec["point"].dump());
      } catch (const json::exception&) {
      }
    }
  }
  // O_NOFOLLOW: a symlink planted at the journal's name is not followed.
  int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | (resume ? O_APPEND : O_TRUNC);
  fd_ = ::open(path.c_str(), flags, 0666);
  if (fd_ < 0) throw UsageError("cannot write partial results to " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw UsageError(path + ": the partial results file is not a regular file");
  }
  if (!resume && !writeLine(fd_, json{{"collsim_journal", 1}, {"study", fingerprint}}.dump()))
    throw UsageError("cannot write partial results to " + path + ": " + std::strerror(errno));
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
