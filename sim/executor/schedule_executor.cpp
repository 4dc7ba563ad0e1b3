#include "sim/executor/schedule_executor.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "sim/trace/trace_sink.h"

namespace collsim {
namespace {
// Event argument: the low bit says which event, the rest which rank.
constexpr std::uint64_t kStartStep = 0;
constexpr std::uint64_t kReceiveDone = 1;
} // namespace

ScheduleExecutor::ScheduleExecutor(EventEngine& engine, LinkNetwork& network, const Cluster& cluster,
                                   const Schedule& schedule, TraceSink* trace)
    : engine_(engine), network_(network), cluster_(cluster), schedule_(schedule), trace_(trace) {
  if (schedule.ranks() != cluster.ranks())
    throw std::invalid_argument("schedule has " + std::to_string(schedule.ranks()) + " ranks, cluster " +
                                std::to_string(cluster.ranks()));
  ranks_.resize(std::size_t(schedule.ranks()));
  for (int r = 0; r < schedule.ranks(); ++r) ranks_[r].steps = schedule.stepCount(r);
  result_.rankFinish.assign(ranks_.size(), 0);
}

ExecutionResult ScheduleExecutor::run() {
  network_.setListener(this);
  Time begin = engine_.now();
  std::uint64_t events = engine_.eventsProcessed();
  for (int r = 0; r < int(ranks_.size()); ++r) {
    if (cluster_.device.stepOverhead > 0 && ranks_[r].steps > 0)
      engine_.scheduleAfter(cluster_.device.stepOverhead, this, std::uint64_t(r) << 1 | kStartStep);
    else
      runSteps(r);
  }
  engine_.run();
  network_.setListener(nullptr);
  network_.flushTrace();
  for (int r = 0; r < int(ranks_.size()); ++r) {
    if (ranks_[r].step < ranks_[r].steps)
      throw std::runtime_error("rank " + std::to_string(r) + " never finished step " +
                               std::to_string(ranks_[r].step) + " (deadlock)");
    result_.rankFinish[r] -= begin;
  }
  result_.finish = result_.rankFinish.empty() ? 0 : *std::max_element(result_.rankFinish.begin(), result_.rankFinish.end());
  result_.events = engine_.eventsProcessed() - events;
  return result_;
}

ScheduleExecutor::PairState& ScheduleExecutor::pair(int src, int dst) {
  return pairs_[std::uint64_t(std::uint32_t(src)) << 32 | std::uint32_t(dst)];
}

// Starts steps until one has to wait for the network (or for an overhead).
void ScheduleExecutor::runSteps(int r) {
  RankState& s = ranks_[r];
  while (s.step < s.steps) {
    postStep(r);
    if (s.outstanding > 0) return;
    endStep(r);
    if (cluster_.device.stepOverhead > 0 && s.step < s.steps) {
      engine_.scheduleAfter(cluster_.device.stepOverhead, this, std::uint64_t(r) << 1 | kStartStep);
      return;
    }
  }
}

void ScheduleExecutor::postStep(int r) {
  RankState& s = ranks_[r];
  s.ops.clear();
  schedule_.appendOps(r, s.step, s.ops);
  s.stepStart = engine_.now();
  s.stepBytesSent = 0;
  s.outstanding = int(s.ops.size());
  s.posting = true;
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::Copy) {
      // A device-local copy runs at memory speed (~1 TB/s), two orders of
      // magnitude above a link: not modelled.
      --s.outstanding;
    } else if (op.kind == OpKind::Send) {
      PairState& p = pair(r, op.peer);
      std::uint32_t id;
      if (freeInFlight_.empty()) {
        id = std::uint32_t(inFlight_.size());
        inFlight_.emplace_back();
      } else {
        id = freeInFlight_.back();
        freeInFlight_.pop_back();
      }
      inFlight_[id] = {r, op.peer, p.sendsPosted++, op.bytes};
      ++result_.messages;
      result_.bytesSent += op.bytes;
      s.stepBytesSent += op.bytes;
      network_.send(cluster_.rankNode[r], cluster_.rankNode[op.peer], op.bytes, id);
    } else {
      bool reduce = op.kind == OpKind::RecvReduce;
      PairState& p = pair(op.peer, r);
      std::uint32_t seq = p.recvsPosted++;
      auto it = std::find(p.arrived.begin(), p.arrived.end(), seq);
      if (it != p.arrived.end()) {
        p.arrived.erase(it);
        receiveArrived(r, op.bytes, reduce);
      } else {
        p.waiting.emplace_back(seq, reduce);
      }
    }
  }
  s.posting = false;
}

void ScheduleExecutor::endStep(int r) {
  RankState& s = ranks_[r];
  if (trace_) trace_->rankStep(r, s.step, s.stepStart, engine_.now(), s.stepBytesSent);
  ++s.step;
  if (s.step == s.steps) result_.rankFinish[r] = engine_.now();
}

// One operation of rank r's current step has completed.
void ScheduleExecutor::complete(int r) {
  RankState& s = ranks_[r];
  if (--s.outstanding > 0 || s.posting) return;
  endStep(r);
  if (s.step == s.steps) return;
  if (cluster_.device.stepOverhead > 0)
    engine_.scheduleAfter(cluster_.device.stepOverhead, this, std::uint64_t(r) << 1 | kStartStep);
  else
    runSteps(r);
}

// The data of a receive is here; a reduce still has to be computed.
void ScheduleExecutor::receiveArrived(int r, Bytes bytes, bool reduce) {
  result_.bytesReceived += bytes;
  Bandwidth rate = cluster_.device.reduceBandwidth;
  if (!reduce || rate == 0) {
    complete(r);
    return;
  }
  RankState& s = ranks_[r];
  Time start = std::max(engine_.now(), s.reduceFreeAt);
  s.reduceFreeAt = start + serializationTime(bytes, rate);
  engine_.schedule(s.reduceFreeAt, this, std::uint64_t(r) << 1 | kReceiveDone);
}

void ScheduleExecutor::onEvent(std::uint64_t arg) {
  int r = int(arg >> 1);
  if ((arg & 1) == kReceiveDone) complete(r);
  else runSteps(r);
}

void ScheduleExecutor::onDelivered(std::uint64_t cookie) {
  InFlight m = inFlight_[cookie];
  freeInFlight_.push_back(std::uint32_t(cookie));
  if (record_) result_.log.push_back({m.src, m.dst, m.seq, m.bytes});
  complete(m.src); // the send
  PairState& p = pair(m.src, m.dst);
  auto it = std::find_if(p.waiting.begin(), p.waiting.end(), [&](auto& w) { return w.first == m.seq; });
  if (it == p.waiting.end()) {
    p.arrived.push_back(m.seq);
    return;
  }
  bool reduce = it->second;
  p.waiting.erase(it);
  receiveArrived(m.dst, m.bytes, reduce);
}

} // namespace collsim
