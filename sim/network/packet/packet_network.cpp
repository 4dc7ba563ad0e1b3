#include "sim/network/packet/packet_network.h"

#include <algorithm>

#include "sim/network/packet/pfc_budget.h"
#include "sim/network/packet/port_scheduler.h"

namespace collsim {
namespace {

constexpr std::uint64_t kEcnSeed = 0x5eed0ecull;
constexpr Time kAckInterval = 10 * kPsPerUs;
// A NIC (or PCIe switch) holds back an input link once this much of what
// came over it waits in its queues, and lets it go again below half of it:
// PCIe flow-control credits, a few packets' worth.
constexpr Bytes kBridgeXoff = 64 << 10, kBridgeXon = 32 << 10;

} // namespace

PacketNetwork::PacketNetwork(EventEngine& engine, const Cluster& cluster, const RoceModel& model, std::uint64_t seed)
    : engine_(engine), cluster_(cluster), model_(model), routing_(cluster),
      roceJitter_(model.jitter, seed * 2 + 1), hccsJitter_(model.hccsJitter, seed * 2 + 2), ecnRng_(kEcnSeed) {
  if (model_.pfc.enabled)
    if (auto why = pfcBufferShortfall(cluster, model_)) throw InputError(*why);
  receiving_ = {true, model_.dcqcn.enabled, model_.dcqcn.cnpInterval, std::uint32_t(model_.ackEvery), kAckInterval};
  receivingOther_ = receiving_;
  receivingOther_.roce = false;
  std::vector<SwitchBudget> budgets = pfcBudgets(cluster, model_);
  const Bytes hysteresis = model_.pfc.xoff - model_.pfc.xon;
  ports_.reserve(2 * cluster.links.size());
  for (const auto& l : cluster.links)
    for (int dir = 0; dir < 2; ++dir) {
      int from = dir == 0 ? l.a : l.b, to = dir == 0 ? l.b : l.a;
      const ClusterNode &source = cluster.nodes[std::size_t(from)], &sink = cluster.nodes[std::size_t(to)];
      EgressPort p;
      p.bandwidth = l.params.bandwidth;
      p.latency = l.params.latency;
      p.tier = l.tier;
      p.toNode = to;
      p.toSwitch = sink.kind == NodeKind::Switch;
      p.fromSwitch = source.kind == NodeKind::Switch;
      p.toBridge = sink.kind == NodeKind::Nic || sink.kind == NodeKind::ServerSwitch;
      p.ecn = &model_.ecn;
      for (const auto& sw : model_.switches)
        if (p.fromSwitch && sw.ecn && sw.matches(source.name)) p.ecn = &*sw.ecn;
      if (p.fromSwitch) {
        const SwitchBudget& b = budgets[std::size_t(from)];
        p.buffer = b.buffer;
        p.pauseAbove = b.pauseAbove();
        p.resumeBelow = p.pauseAbove > hysteresis ? p.pauseAbove - hysteresis : 0;
      }
      ports_.push_back(std::move(p));
    }
}

std::uint32_t PacketNetwork::connection(int src, int dst) {
  std::uint64_t key = std::uint64_t(src) << 32 | std::uint32_t(dst);
  if (auto it = connections_.find(key); it != connections_.end()) return it->second;
  auto first = std::uint32_t(senders_.size());
  connections_.emplace(key, first);
  Routing::Route probe = routing_.route(src, dst, 0);
  bool roce = false;
  for (std::uint32_t h = 0; h < probe.hops; ++h) roce |= ports_[routing_.channel(probe, h)].tier == LinkTier::ScaleOut;
  int count = roce ? model_.queuePairs : 1; // HCCS paths: one ordered stream
  for (int i = 0; i < count; ++i) {
    SenderQp q;
    q.src = src;
    q.dst = dst;
    q.route = routing_.route(src, dst, std::uint32_t(i));
    q.firstPort = routing_.channel(q.route, 0);
    q.roce = roce;
    q.lineRate = ports_[q.firstPort].bandwidth;
    for (std::uint32_t h = 0; h < q.route.hops; ++h) {
      const EgressPort& p = ports_[routing_.channel(q.route, h)];
      q.controlDelay += p.latency + serializationTime(kControlFrame, p.bandwidth);
      if (p.tier == LinkTier::ScaleOut) q.lineRate = std::min(q.lineRate, p.bandwidth);
    }
    q.rate = DcqcnRate(&model_.dcqcn, q.lineRate);
    senders_.push_back(std::move(q));
    receivers_.emplace_back();
    traceRate(std::uint32_t(senders_.size() - 1)); // its line rate, before any cut
  }
  return first;
}

void PacketNetwork::send(int src, int dst, Bytes bytes, std::uint64_t cookie) {
  std::uint32_t m = messages_.add({cookie, 0, engine_.now()});
  if (src == dst) { // nothing crosses a link
    messages_[m].partsLeft = 1;
    engine_.scheduleAfter(0, &localDelivery_, m);
    return;
  }
  std::uint32_t first = connection(src, dst);
  int count = senders_[first].roce ? model_.queuePairs : 1;
  const QpStripe stripe = stripeOverQueuePairs(bytes, model_.mtu, count);
  Bytes left = bytes;
  for (std::uint32_t i = 0; i < stripe.parts; ++i) {
    Bytes part = std::min(left, stripe.partBytes);
    left -= part;
    senders_[first + i].addPart(m, part, model_.mtu);
    ++messages_[m].partsLeft;
    activate(first + i);
  }
}

void PacketNetwork::activate(std::uint32_t id) {
  armTimers(id);
  SenderQp& q = senders_[id];
  if (!q.hasUnsent() || q.listed) return;
  q.listed = true;
  ports_[q.firstPort].sources.push_back(id);
  kick(q.firstPort);
}

void PacketNetwork::wakeAt(std::uint32_t port, Time at) {
  ports_[port].wakeAt = at;
  engine_.schedule(at, &portFree_, port);
}

// Something joined the port: send now if it is idle, else make sure it
// wakes up when it is free.
void PacketNetwork::kick(std::uint32_t port) {
  EgressPort& p = ports_[port];
  if (p.paused) return;
  Time ready = std::max(engine_.now(), p.freeAt);
  if (p.wakeAt <= ready) return; // a wake-up comes soon enough
  if (ready == engine_.now()) startNext(port);
  else wakeAt(port, ready);
}

void PacketNetwork::onPortFree(std::uint32_t port) {
  if (ports_[port].wakeAt != engine_.now()) return; // superseded by an earlier wake-up
  ports_[port].wakeAt = kNever;
  startNext(port);
}

void PacketNetwork::startNext(std::uint32_t port) {
  EgressPort& p = ports_[port];
  if (p.paused || engine_.now() < p.freeAt) return kick(port);
  NextSender next = takeTurn(p, senders_, engine_.now());
  switch (next.from) {
  case NextSender::From::Nothing:
    if (next.retryAt != kNever && p.wakeAt > next.retryAt) wakeAt(port, next.retryAt);
    return;
  case NextSender::From::Fifo:
    dequeued(p, packets_[next.index]);
    return transmit(port, next.index);
  case NextSender::From::Qp: {
    SenderQp& q = senders_[next.index];
    if (q.nextSeq < q.sentHigh) ++metrics_.resent;
    ++metrics_.packetsSent;
    return transmit(port, packets_.add(q.nextPacket(next.index, model_.mtu)));
  }
  }
}

void PacketNetwork::transmit(std::uint32_t port, std::uint32_t packet) {
  EgressPort& p = ports_[port];
  Packet& pk = packets_[packet];
  pk.ingress = kNoIndex;
  Bytes wire = wireBytes(p, pk);
  pk.wire = std::uint32_t(wire);
  const Time now = engine_.now();
  p.busyPeriod.onStart(trace_, port, now, p.freeAt);
  Time duration = serializationTime(wire, p.bandwidth);
  p.freeAt = now + duration;
  p.busy += duration;
  p.payload += pk.payload;
  p.wire += wire;
  ++metrics_.packetHops;
  if (pk.hop == 0) { // leaving its sender: the QP's rate decides when the next may go
    SenderQp& q = senders_[pk.qp];
    if (q.roce && model_.dcqcn.enabled) {
      q.paceAfter(wire, now);
      armTimers(pk.qp);
    }
    if (q.roce && model_.retransmitTimeout > 0 && !q.rtoTimer) armRetransmitTimer(pk.qp);
  }
  JitterSource& jitter = p.tier == LinkTier::ScaleOut ? roceJitter_ : hccsJitter_;
  Time arrival = p.freeAt + p.latency + (jitter.none() ? 0 : jitter.draw());
  arrival = std::max(arrival, p.lastArrival); // no overtaking on one link
  p.lastArrival = arrival;
  engine_.schedule(arrival, &arrive_, packet);
  if ((!p.fifo.empty() || !p.sources.empty()) && p.wakeAt > p.freeAt) wakeAt(port, p.freeAt);
}

void PacketNetwork::onArrive(std::uint32_t packet) {
  Packet& pk = packets_[packet];
  const SenderQp& q = senders_[pk.qp];
  std::uint32_t in = routing_.channel(q.route, pk.hop);
  if (++pk.hop == q.route.hops) return receive(packet);
  const EgressPort& link = ports_[in];
  enqueue(routing_.channel(q.route, pk.hop), packet, link.toSwitch || link.toBridge ? in : kNoIndex);
}

void PacketNetwork::enqueue(std::uint32_t port, std::uint32_t packet, std::uint32_t ingress) {
  EgressPort& out = ports_[port];
  Packet& pk = packets_[packet];
  Bytes wire = wireBytes(out, pk);
  pk.wire = std::uint32_t(wire);
  if (out.fromSwitch) {
    if (out.queuedBytes + wire > out.buffer) { // with PFC this would be a headroom overrun
      ++metrics_.drops;
      packets_.release(packet);
      return;
    }
    if (out.tier == LinkTier::ScaleOut && redMarks(*out.ecn, out.queuedBytes, ecnRng_)) {
      pk.ecn = true;
      ++metrics_.ecnMarks;
    }
    metrics_.queueDepth.add(out.queuedBytes + wire);
    pk.ingress = ingress;
    if (ingress != kNoIndex) {
      EgressPort& in = ports_[ingress];
      in.ingressBytes += wire;
      if (model_.pfc.enabled && !in.heldByIngress && in.ingressBytes > model_.pfc.xoff) {
        in.heldByIngress = true;
        hold(ingress);
      }
      if (model_.pfc.enabled && out.queuedBytes + wire > out.pauseAbove) holdFor(port, ingress);
    }
  } else if (ingress != kNoIndex) {
    // A NIC or PCIe switch: no marking, no drops; its inputs are held back instead.
    pk.ingress = ingress;
    EgressPort& in = ports_[ingress];
    in.ingressBytes += wire;
    if (!in.heldByIngress && in.ingressBytes > kBridgeXoff) {
      in.heldByIngress = true;
      hold(ingress);
    }
  }
  out.fifo.push_back(packet);
  out.queuedBytes += wire;
  traceQueue(port);
  kick(port);
}

// A packet leaves a queue: its bytes no longer count against the queue, nor
// against the ingress link it came in on; either may let links go again.
void PacketNetwork::dequeued(EgressPort& out, const Packet& p) {
  out.queuedBytes -= std::min(out.queuedBytes, Bytes(p.wire));
  traceQueue(std::uint32_t(&out - ports_.data()));
  if (p.ingress != kNoIndex) {
    EgressPort& in = ports_[p.ingress];
    in.ingressBytes -= std::min(in.ingressBytes, Bytes(p.wire));
    Bytes resumeBelow = in.toBridge ? kBridgeXon : model_.pfc.xon;
    if (in.heldByIngress && in.ingressBytes <= resumeBelow) {
      in.heldByIngress = false;
      release(p.ingress);
    }
  }
  if (!out.holding.empty() && out.queuedBytes <= out.resumeBelow) {
    for (std::uint32_t in : out.holding) release(in);
    out.holding.clear();
  }
}

void PacketNetwork::traceQueue(std::uint32_t port) {
  if (trace_ && ports_[port].fromSwitch)
    trace_->counter({CounterTrack::Kind::QueueBytes, port}, engine_.now(), double(ports_[port].queuedBytes));
}

void PacketNetwork::traceRate(std::uint32_t qp) {
  const SenderQp& q = senders_[qp];
  if (trace_ && q.roce && model_.dcqcn.enabled) trace_->counter({CounterTrack::Kind::QpRate, qp, q.src, q.dst}, engine_.now(), q.rate.rate());
}

void PacketNetwork::holdFor(std::uint32_t egress, std::uint32_t ingress) {
  std::vector<std::uint32_t>& holding = ports_[egress].holding;
  if (std::find(holding.begin(), holding.end(), ingress) != holding.end()) return;
  holding.push_back(ingress);
  hold(ingress);
}

void PacketNetwork::hold(std::uint32_t port) {
  EgressPort& p = ports_[port];
  if (p.holds++ > 0) return;
  if (p.toSwitch) ++metrics_.pauseFrames; // PFC; a NIC's hold is PCIe flow control
  engine_.scheduleAfter(p.latency, &pause_, port);
}

void PacketNetwork::release(std::uint32_t port) {
  EgressPort& p = ports_[port];
  if (--p.holds == 0) engine_.scheduleAfter(p.latency, &resume_, port);
}

void PacketNetwork::onPause(std::uint32_t port) {
  EgressPort& p = ports_[port];
  if (p.paused || p.holds == 0) return; // let go before the pause arrived
  p.paused = true;
  p.pausedSince = engine_.now();
  if (trace_) trace_->counter({CounterTrack::Kind::PfcPaused, port}, engine_.now(), 1);
}

void PacketNetwork::onResume(std::uint32_t port) {
  EgressPort& p = ports_[port];
  if (!p.paused) return;
  p.pausedTotal += engine_.now() - p.pausedSince;
  p.paused = false;
  if (trace_) trace_->counter({CounterTrack::Kind::PfcPaused, port}, engine_.now(), 0);
  kick(port);
}

void PacketNetwork::receive(std::uint32_t packet) {
  const Packet pk = packets_[packet];
  packets_.release(packet);
  const bool roce = senders_[pk.qp].roce;
  QpReceiver::Reply r = receivers_[pk.qp].onPacket(pk, engine_.now(), roce ? receiving_ : receivingOther_);
  if (r.cnp) {
    ++metrics_.cnps;
    sendControl(pk.qp, Control::Cnp, 0);
  }
  if (r.answer) sendControl(pk.qp, r.kind, r.seq);
  if (r.partDone) complete(pk.message);
}

void PacketNetwork::complete(std::uint32_t m) {
  if (--messages_[m].partsLeft > 0) return;
  metrics_.latency.add(engine_.now() - messages_[m].sentAt);
  std::uint64_t cookie = messages_[m].cookie;
  messages_.release(m);
  if (listener_) listener_->onDelivered(cookie); // may send: no references held past here
}

void PacketNetwork::onLocalDelivery(std::uint32_t m) { complete(m); }

void PacketNetwork::sendControl(std::uint32_t qp, Control kind, std::uint32_t seq) {
  engine_.scheduleAfter(senders_[qp].controlDelay, &control_, controls_.add({qp, kind, seq}));
}

void PacketNetwork::onControl(std::uint32_t id) {
  ControlPacket c = controls_[id];
  controls_.release(id);
  SenderQp& q = senders_[c.qp];
  switch (c.kind) {
  case Control::Cnp:
    switch (q.rate.onCnp(engine_.now())) {
    case DcqcnRate::CnpEffect::Cut: afterCut(c.qp); break;
    case DcqcnRate::CnpEffect::CutAtPeriodEnd: engine_.schedule(q.rate.cutDueAt(), &decreaseTimer_, c.qp); break;
    case DcqcnRate::CnpEffect::AlreadyPending: break;
    }
    break;
  case Control::Ack: q.onAck(c.seq); break;
  case Control::Nack:
    ++q.progress;
    goBack(c.qp, c.seq);
    break;
  }
}

void PacketNetwork::goBack(std::uint32_t qp, std::uint32_t seq) {
  if (senders_[qp].goBack(seq)) activate(qp);
}

// DCQCN's increase timer runs while the QP is below line rate and has data
// out or waiting; an idle QP keeps its rate until it sends again. A cut
// restarts it: the event already scheduled finds itself stale.
void PacketNetwork::armTimers(std::uint32_t qp) {
  SenderQp& q = senders_[qp];
  if (!model_.dcqcn.enabled || q.increaseTimer || !q.rate.limited() || q.allAcknowledged()) return;
  q.increaseTimer = true;
  q.increaseDueAt = engine_.now() + model_.dcqcn.increasePeriod;
  engine_.schedule(q.increaseDueAt, &increaseTimer_, qp);
}

void PacketNetwork::afterCut(std::uint32_t qp) {
  senders_[qp].increaseTimer = false;
  rateChanged(qp);
}

void PacketNetwork::rateChanged(std::uint32_t qp) {
  SenderQp& q = senders_[qp];
  Time before = q.nextSendAt;
  q.repace();
  if (q.listed && q.nextSendAt < before) kick(q.firstPort);
  traceRate(qp);
  armTimers(qp);
}

void PacketNetwork::onDecreaseTimer(std::uint32_t qp) {
  senders_[qp].rate.onDecreaseTimer(engine_.now());
  afterCut(qp);
}

void PacketNetwork::onIncreaseTimer(std::uint32_t qp) {
  SenderQp& q = senders_[qp];
  if (!q.increaseTimer || q.increaseDueAt != engine_.now()) return; // restarted by a cut since
  q.increaseTimer = false;
  q.rate.onIncreaseTimer();
  rateChanged(qp);
}

void PacketNetwork::armRetransmitTimer(std::uint32_t qp) {
  SenderQp& q = senders_[qp];
  q.rtoTimer = true;
  q.progressAtArm = q.progress;
  engine_.scheduleAfter(model_.retransmitTimeout, &retransmitTimer_, qp);
}

// Go back to the last acknowledged packet after a period without progress.
void PacketNetwork::onRetransmitTimer(std::uint32_t qp) {
  SenderQp& q = senders_[qp];
  q.rtoTimer = false;
  if (q.allAcknowledged()) return;
  if (q.progress == q.progressAtArm && q.nextSeq > q.ackedSeq) {
    ++metrics_.timeouts;
    goBack(qp, q.ackedSeq);
  }
  armRetransmitTimer(qp);
}

void PacketNetwork::flushTrace() {
  for (std::uint32_t c = 0; c < ports_.size(); ++c) ports_[c].busyPeriod.flush(trace_, c, ports_[c].freeAt);
}

std::vector<PacketNetwork::QpView> PacketNetwork::queuePairs() const {
  std::vector<QpView> v;
  for (std::size_t i = 0; i < senders_.size(); ++i)
    v.push_back({senders_[i].src, senders_[i].dst, receivers_[i].delivered, senders_[i].rate.rate()});
  return v;
}

Bytes PacketNetwork::deepestSwitchQueue() const {
  Bytes deepest = 0;
  for (const auto& p : ports_)
    if (p.fromSwitch) deepest = std::max(deepest, p.queuedBytes);
  return deepest;
}

NetworkMetrics PacketNetwork::metrics(Time runTime) const {
  return metrics_.report(cluster_, ports_, runTime, engine_.now());
}

} // namespace collsim
