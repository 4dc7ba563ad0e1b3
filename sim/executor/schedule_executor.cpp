#include "sim/executor/schedule_executor.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/trace/trace_sink.h"

namespace collsim {
namespace {
// Event argument: the low three bits say which event, the next 32 which
// lane (or, for kDeliver and kSlotBack, which message); a computation's
// turn sits above them.
constexpr std::uint64_t kStartStep = 0;
constexpr std::uint64_t kOpDone = 1;  // a reduction
constexpr std::uint64_t kDeliver = 2; // a message held back by its lane's bandwidth
constexpr std::uint64_t kSlotBack = 3; // a receiver's word that a slot is free has reached its sender
constexpr std::uint64_t kComputeDone = 4; // a step's computation, if its turn is still the lane's
constexpr int kKindBits = 3;
constexpr int kTurnShift = kKindBits + 32;
constexpr std::uint32_t kTurnMask = (1u << (64 - kTurnShift)) - 1;
} // namespace

ScheduleExecutor::ScheduleExecutor(EventEngine& engine, Network& network, const Cluster& cluster,
                                   const Schedule& schedule, TraceSink* trace, const RankSymmetry* symmetry)
    : engine_(engine), network_(network), cluster_(cluster), trace_(trace),
      costs_(StepCosts::ofDevice(cluster.device)), ranks_(schedule.ranks()), symmetry_(symmetry),
      laneRanks_(symmetry ? symmetry->representatives() : ranks_) {
  if (schedule.ranks() != cluster.ranks())
    throw std::invalid_argument("schedule has " + std::to_string(schedule.ranks()) + " ranks, cluster " +
                                std::to_string(cluster.ranks()));
  if (symmetry && symmetry->ranks() != ranks_) throw std::invalid_argument("the symmetry is of another run");
  for (int st = 0; st < schedule.streamCount(); ++st) {
    const Schedule& sub = schedule.stream(st);
    for (int i = 0; i < laneRanks_; ++i) {
      const int r = symmetry ? symmetry->representativeAt(i) : i;
      Lane lane;
      lane.schedule = &sub;
      lane.rank = r;
      lane.stream = st;
      lane.steps = sub.stepCount(r);
      lanes_.push_back(std::move(lane));
    }
  }
  reduceFreeAt_.assign(std::size_t(ranks_), 0);
  communicatingLanes_.assign(std::size_t(ranks_), 0);
  computingLanes_.assign(std::size_t(ranks_), {});
  for (int node : cluster.rankNode) rankServer_.push_back(cluster.nodes[std::size_t(node)].server);
  reducingSwitchOfServer_.assign(std::size_t(std::max(1, cluster.servers)), -1);
  for (std::size_t n = 0; n < cluster.nodes.size(); ++n) {
    if (!cluster.nodes[n].reduces) continue;
    int server = cluster.nodes[n].server;
    if (server >= 0 && server < cluster.servers) reducingSwitchOfServer_[std::size_t(server)] = int(n);
    else if (server < 0) reducingFabricSwitch_ = int(n);
  }
  waiters_.resize(lanes_.size());
  result_.rankFinish.assign(std::size_t(ranks_), 0);
}

ExecutionResult ScheduleExecutor::run() {
  network_.setListener(this);
  Time begin = engine_.now();
  std::uint64_t events = engine_.eventsProcessed();
  for (std::uint32_t l = 0; l < lanes_.size(); ++l) {
    if (lanes_[l].steps == 0) continue;
    if (costs_.launch > 0) engine_.scheduleAfter(costs_.launch, this, std::uint64_t(l) << kKindBits | kStartStep);
    else runSteps(l);
  }
  engine_.run();
  network_.setListener(nullptr);
  network_.flushTrace();
  for (const Lane& lane : lanes_)
    if (lane.step < lane.steps)
      throw std::runtime_error("rank " + std::to_string(lane.rank) + " never finished step " +
                               std::to_string(lane.step) + " (deadlock)");
  for (Time& t : result_.rankFinish) t = std::max<Time>(t - begin, 0);
  if (symmetry_) { // every rank as its representative; every message and byte as many times as its class
    for (int r = 0; r < ranks_; ++r) result_.rankFinish[std::size_t(r)] = result_.rankFinish[std::size_t(representativeOf(r))];
    const auto copies = std::uint64_t(symmetry_->copies());
    result_.messages *= copies, result_.bytesSent *= copies, result_.bytesReceived *= copies;
  }
  result_.finish = result_.rankFinish.empty() ? 0 : *std::max_element(result_.rankFinish.begin(), result_.rankFinish.end());
  result_.events = engine_.eventsProcessed() - events;
  result_.network = network_.metrics(result_.finish);
  return result_;
}

// The pairs are found through the sender's index.
std::uint32_t ScheduleExecutor::pairOf(std::uint32_t senderLane, int receiver) {
  auto& peers = lanes_[senderLane].sendsTo;
  auto it = std::lower_bound(peers.begin(), peers.end(), receiver, [](const auto& e, int peer) { return e.first < peer; });
  if (it != peers.end() && it->first == receiver) return it->second;
  auto index = std::uint32_t(pairs_.size());
  pairs_.emplace_back();
  pairs_.back().senderLane = senderLane, pairs_.back().receiver = receiver;
  peers.insert(it, {receiver, index});
  return index;
}

Bytes ScheduleExecutor::wireBytes(Bytes data) const {
  return costs_.dataShare < 1 ? Bytes(std::ceil(double(data) / costs_.dataShare)) : data;
}

// The latency a step pays before its transfers start: none for a step that
// only computes or waits; the inter-server one if a peer is on another server.
Time ScheduleExecutor::stepLatency(const Lane& s) const {
  if (costs_.intraStep == 0 && costs_.interStep == 0) return 0;
  bool any = false, crosses = false;
  for (const Op& op : s.ops) {
    if (!communicates(op)) continue;
    any = true;
    crosses = crosses || rankServer_[std::size_t(op.peer)] != rankServer_[std::size_t(s.rank)];
  }
  return !any ? 0 : crosses ? costs_.interStep : costs_.intraStep;
}

// Starts steps until one has to wait for the network, a computation or
// the step latency. Only steps that communicate pay the latency (it is
// the cost of launching transfers); computations and waits do not.
void ScheduleExecutor::runSteps(std::uint32_t l) {
  Lane& s = lanes_[l];
  while (s.step < s.steps) {
    if (!s.loaded) {
      s.ops.clear();
      s.schedule->appendOps(s.rank, s.step, s.ops);
      s.loaded = true;
      // A collective's kernel runs from its first step to its last: the
      // lane stops communicating at a step that does not.
      if (computeShareTaken_ > 0 && s.communicating != std::any_of(s.ops.begin(), s.ops.end(), communicates))
        communicatingChanged(l, !s.communicating);
      if (Time latency = stepLatency(s); latency > 0)
        return engine_.scheduleAfter(latency, this, std::uint64_t(l) << kKindBits | kStartStep);
    }
    postStep(l);
    if (s.outstanding > 0) return;
    endStep(l);
  }
}

void ScheduleExecutor::postStep(std::uint32_t l) {
  Lane& s = lanes_[l];
  s.loaded = false;
  s.stepStart = engine_.now();
  s.stepBytesSent = 0;
  s.outstanding = int(s.ops.size());
  s.posting = true;
  std::vector<std::pair<const Op*, std::uint32_t>> stepMulticasts; // this step's multicast groups
  for (const Op& op : s.ops) {
    if (op.kind == OpKind::Compute) {
      s.computeLeft = std::max(s.computeOps++ ? s.computeLeft : 0, op.durationPs);
    } else if (op.kind == OpKind::Copy) {
      // A device-local copy runs at memory speed (~1 TB/s), two orders of
      // magnitude above a link: not modelled.
      --s.outstanding;
    } else if (op.kind == OpKind::Wait) {
      std::uint32_t other = laneOf(op.peer, s.rank);
      if (lanes_[other].step >= int(op.offset)) --s.outstanding;
      else waiters_[other].emplace_back(l, int(op.offset));
    } else if (op.kind == OpKind::Send) {
      std::uint32_t pairIndex = pairOf(l, op.peer);
      PairState& p = pairs_[pairIndex];
      InFlight message{l, laneOf(s.stream, representativeOf(op.peer)), p.sendsPosted++, 0, op.bytes, 0};
      message.pair = pairIndex;
      message.to = op.peer;
      message.postedAt = engine_.now();
      ++result_.messages;
      result_.bytesSent += op.bytes;
      s.stepBytesSent += op.bytes;
      if (int sw = reducingSwitch(s.rank, op); sw >= 0) {
        if (representativeOf(op.peer) != op.peer)
          throw SymmetryBroken("an in-network send to rank " + std::to_string(op.peer) + ", which does not run");
        message.released = s.undelivered < costs_.slots;
        ++s.undelivered;
        if (message.released) --s.outstanding;
        sendThroughSwitch(l, op, sw, message, throughSwitch(wireBytes(op.bytes), sw), stepMulticasts);
        continue;
      }
      message.released = costs_.slots > 0 && p.slotsTaken < costs_.slots;
      std::uint32_t cookie = inFlight_.add(message);
      if (costs_.slots > 0 && !message.released) {
        p.held.push_back(cookie);
        continue;
      }
      if (message.released) ++p.slotsTaken, --s.outstanding;
      postDirect(cookie);
    } else {
      bool reduce = op.kind == OpKind::RecvReduce;
      // The sender's representative sends as if to this rank's image.
      const int seen = symmetry_ ? symmetry_->alongWith(op.peer, s.rank) : s.rank;
      const std::uint32_t pairIndex = pairOf(laneOf(s.stream, representativeOf(op.peer)), seen);
      PairState& p = pairs_[pairIndex];
      std::uint32_t seq = p.recvsPosted++;
      auto it = std::find_if(p.arrived.begin(), p.arrived.end(), [&](auto& a) { return a.first == seq; });
      if (it != p.arrived.end()) {
        bool direct = it->second;
        p.arrived.erase(it);
        if (direct && costs_.slots > 0) giveSlotBack(pairIndex);
        receiveArrived(l, op.bytes, reduce);
      } else {
        p.waiting.emplace_back(seq, reduce);
      }
    }
  }
  if (s.computeOps > 0) {
    s.computeSince = engine_.now();
    if (computeShareTaken_ > 0) {
      std::vector<std::uint32_t>& computing = computingLanes_[std::size_t(s.rank)];
      computing.insert(std::lower_bound(computing.begin(), computing.end(), l), l);
    }
    scheduleCompute(l);
  }
  s.posting = false;
}

// (Re)schedules the lane's computation at its rank's current speed; an
// event scheduled before is left to find its turn passed.
void ScheduleExecutor::scheduleCompute(std::uint32_t l) {
  Lane& s = lanes_[l];
  s.computeRate = communicatingLanes_[std::size_t(s.rank)] > 0 ? 1 - computeShareTaken_ : 1;
  s.computeTurn = (s.computeTurn + 1) & kTurnMask;
  if (s.computeRate <= 0) return; // every unit is the collective's: it waits for it to end
  Time left = s.computeRate == 1 ? s.computeLeft : Time(std::ceil(double(s.computeLeft) / s.computeRate));
  engine_.scheduleAfter(left, this, std::uint64_t(s.computeTurn) << kTurnShift | std::uint64_t(l) << kKindBits | kComputeDone);
}

void ScheduleExecutor::computeDone(std::uint32_t l, std::uint32_t turn) {
  Lane& s = lanes_[l];
  if (turn != s.computeTurn || s.computeOps == 0) return; // replaced by a later one
  int ops = s.computeOps;
  s.computeOps = 0;
  if (computeShareTaken_ > 0) {
    std::vector<std::uint32_t>& computing = computingLanes_[std::size_t(s.rank)];
    auto it = std::lower_bound(computing.begin(), computing.end(), l);
    if (it != computing.end() && *it == l) computing.erase(it);
  }
  for (int i = 0; i < ops; ++i) complete(l);
}

// A lane's step started or stopped communicating: when that changes whether
// its rank communicates, the rank's computations in progress change speed.
void ScheduleExecutor::communicatingChanged(std::uint32_t l, bool communicating) {
  Lane& s = lanes_[l];
  s.communicating = communicating;
  int& count = communicatingLanes_[std::size_t(s.rank)];
  count += communicating ? 1 : -1;
  if (count != (communicating ? 1 : 0)) return; // the rank already was (or still is) communicating
  const Time now = engine_.now();
  for (std::uint32_t at : computingLanes_[std::size_t(s.rank)]) {
    Lane& c = lanes_[at];
    Time elapsed = now - c.computeSince;
    Time done = c.computeRate == 1 ? elapsed : Time(std::llround(double(elapsed) * c.computeRate));
    c.computeLeft = std::max<Time>(0, c.computeLeft - done);
    c.computeSince = now;
    scheduleCompute(at);
  }
}

void ScheduleExecutor::postDirect(std::uint32_t cookie) {
  InFlight& m = inFlight_[cookie];
  Lane& s = lanes_[m.srcLane];
  if (costs_.laneBandwidth > 0)
    s.pushedAt = std::max(s.pushedAt, engine_.now()) + serializationTime(m.bytes, costs_.laneBandwidth);
  m.pushedAt = s.pushedAt;
  network_.send(cluster_.rankNode[s.rank], cluster_.rankNode[m.to], wireBytes(m.bytes), cookie);
}

// The receiver has taken a direct send's data: it tells the sender that the
// slot is free again. That word (a counter, some bytes) takes the route's
// propagation latency back; its serialization and its share of the links
// are too small to model, so it is a delay, not a message.
void ScheduleExecutor::giveSlotBack(std::uint32_t pair) {
  const PairState& p = pairs_[pair];
  InFlight back{p.senderLane, p.senderLane, 0, 0, 0, 0, 0, Leg::SlotBack};
  back.pair = pair;
  Time latency = propagation(cluster_.rankNode[std::size_t(p.receiver)], cluster_.rankNode[lanes_[p.senderLane].rank]);
  engine_.scheduleAfter(latency, this, std::uint64_t(inFlight_.add(back)) << kKindBits | kSlotBack);
}

Time ScheduleExecutor::propagation(int src, int dst) {
  auto [it, fresh] = propagation_.try_emplace(std::uint64_t(std::uint32_t(src)) << 32 | std::uint32_t(dst), 0);
  if (fresh) {
    if (!routing_) routing_.emplace(cluster_);
    Routing::Route r = routing_->route(src, dst);
    for (std::uint32_t h = 0; h < r.hops; ++h) it->second += cluster_.links[routing_->channel(r, h) / 2].params.latency;
  }
  return it->second;
}

// The sender has its slot back: the oldest send waiting for one takes it.
void ScheduleExecutor::slotCameBack(std::uint32_t cookie) {
  InFlight back = inFlight_[cookie];
  inFlight_.release(cookie);
  PairState& p = pairs_[back.pair];
  if (p.heldFirst == p.held.size()) {
    --p.slotsTaken;
    return;
  }
  std::uint32_t next = p.held[p.heldFirst++];
  if (p.heldFirst == p.held.size()) p.held.clear(), p.heldFirst = 0;
  inFlight_[next].released = true;
  postDirect(next);
  complete(back.srcLane);
}

void ScheduleExecutor::endStep(std::uint32_t l) {
  Lane& s = lanes_[l];
  if (s.communicating && s.step + 1 == s.steps) communicatingChanged(l, false);
  if (trace_)
    trace_->rankStep({s.rank, s.stream, s.step, s.stepStart, engine_.now(), s.stepBytesSent, &s.ops,
                      s.schedule->place(s.rank, s.step)});
  ++s.step;
  if (s.step == s.steps) result_.rankFinish[s.rank] = std::max(result_.rankFinish[s.rank], engine_.now());
  // Release the lanes waiting for this one (collected first: completing
  // them may add new waiters).
  auto& waiting = waiters_[l];
  std::vector<std::uint32_t> released;
  for (std::size_t i = 0; i < waiting.size();) {
    if (waiting[i].second <= s.step) {
      released.push_back(waiting[i].first);
      waiting[i] = waiting.back();
      waiting.pop_back();
    } else {
      ++i;
    }
  }
  for (std::uint32_t w : released) complete(w);
}

// One operation of the lane's current step has completed.
void ScheduleExecutor::complete(std::uint32_t l) {
  Lane& s = lanes_[l];
  if (--s.outstanding > 0 || s.posting) return;
  endStep(l);
  runSteps(l);
}

// The data of a receive is here; a reduce still has to be computed.
void ScheduleExecutor::receiveArrived(std::uint32_t l, Bytes bytes, bool reduce) {
  result_.bytesReceived += bytes;
  Bandwidth rate = cluster_.device.reduceBandwidth;
  if (!reduce || rate == 0) return complete(l);
  Time& freeAt = reduceFreeAt_[lanes_[l].rank];
  freeAt = std::max(engine_.now(), freeAt) + serializationTime(bytes, rate);
  engine_.schedule(freeAt, this, std::uint64_t(l) << kKindBits | kOpDone);
}

void ScheduleExecutor::onEvent(std::uint64_t arg) {
  auto index = std::uint32_t(arg >> kKindBits);
  switch (arg & ((1u << kKindBits) - 1)) {
  case kOpDone: return complete(index);
  case kComputeDone: return computeDone(index, std::uint32_t(arg >> kTurnShift));
  case kDeliver: return deliver(index);
  case kSlotBack: return slotCameBack(index);
  default: return runSteps(index);
  }
}

// The network has delivered the message's last byte; its lane may not have
// pushed it out yet (the lane bandwidth is below the network's).
// Its receiver sees it a hop's latency after both (StepCosts).
void ScheduleExecutor::onDelivered(std::uint64_t cookie) {
  const InFlight& m = inFlight_[cookie];
  Time readyAt = std::max(m.pushedAt, engine_.now()) + hopLatency(m);
  if (readyAt > engine_.now()) return engine_.schedule(readyAt, this, cookie << kKindBits | kDeliver);
  deliver(std::uint32_t(cookie));
}

// Only the legs that end at a device: a switch relays at once.
Time ScheduleExecutor::hopLatency(const InFlight& m) const {
  if (costs_.intraHop == 0 && costs_.interHop == 0) return 0;
  if (m.leg != Leg::Direct && m.leg != Leg::MulticastCopy && m.leg != Leg::ReduceDown) return 0;
  bool crosses = rankServer_[std::size_t(lanes_[m.srcLane].rank)] != rankServer_[std::size_t(m.to)];
  return crosses ? costs_.interHop : costs_.intraHop;
}

void ScheduleExecutor::deliver(std::uint32_t cookie) {
  const InFlight& m = inFlight_[cookie];
  switch (m.leg) {
  case Leg::Direct:
    if (!m.released) complete(m.srcLane); // no slots: the send held its step until now
    break;
  case Leg::MulticastCopy: sendArrived(m); break;
  default: return relay(cookie);
  }
  receiverGot(cookie);
}

void ScheduleExecutor::sendArrived(const InFlight& m) {
  --lanes_[m.srcLane].undelivered;
  if (!m.released) complete(m.srcLane);
}

// The message's data is at its receiver.
void ScheduleExecutor::receiverGot(std::uint32_t cookie) {
  InFlight m = inFlight_[cookie];
  inFlight_.release(cookie);
  const Lane& src = lanes_[m.srcLane];
  if (record_) result_.log.push_back({src.stream, src.rank, m.to, m.seq, m.bytes});
  if (trace_) trace_->message({src.rank, m.to, src.stream, m.seq, m.postedAt, engine_.now(), m.bytes});
  PairState& p = pairs_[m.pair];
  bool direct = m.leg == Leg::Direct;
  auto it = std::find_if(p.waiting.begin(), p.waiting.end(), [&](auto& w) { return w.first == m.seq; });
  if (it == p.waiting.end()) {
    p.arrived.emplace_back(m.seq, direct);
    return;
  }
  bool reduce = it->second;
  p.waiting.erase(it);
  if (direct && costs_.slots > 0) giveSlotBack(m.pair);
  receiveArrived(m.dstLane, m.bytes, reduce);
}

} // namespace collsim
