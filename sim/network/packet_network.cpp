#include "sim/network/packet_network.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "sim/trace/trace_sink.h"

namespace collsim {
namespace {

// Event argument: the low 3 bits say which event, the rest for whom.
enum : std::uint64_t { kChannelFree, kArrive, kControl, kTimer, kPause, kResume, kLocal };
enum : int { kAlphaTimer, kIncreaseTimer, kRetransmitTimer };
constexpr Bytes kControlFrame = 64;
constexpr std::uint64_t kEcnSeed = 0x5eed0ecull;
constexpr Time kAckInterval = 10 * kPsPerUs;
// A NIC (or PCIe switch) holds back an input link once this much of what
// came over it waits in its queues, and lets it go again below half of it:
// PCIe flow-control credits, a few packets' worth.
constexpr Bytes kBridgeXoff = 64 << 10, kBridgeXon = 32 << 10;

std::uint64_t event(std::uint64_t who, std::uint64_t kind) { return who << 3 | kind; }

} // namespace

PacketNetwork::PacketNetwork(EventEngine& engine, const Cluster& cluster, std::uint64_t seed)
    : engine_(engine), cluster_(cluster), model_(cluster.roce), routing_(cluster),
      roceJitter_(cluster.roce.jitter, seed * 2 + 1), hccsJitter_(cluster.roce.hccsJitter, seed * 2 + 2),
      ecnRng_(kEcnSeed) {
  channels_.reserve(2 * cluster.links.size());
  for (const auto& l : cluster.links) {
    LinkKind kind = l.type == "roce" ? LinkKind::Roce : LinkKind::Other;
    for (int dir = 0; dir < 2; ++dir) {
      int from = dir == 0 ? l.a : l.b, to = dir == 0 ? l.b : l.a;
      Channel c{};
      c.bandwidth = l.params.bandwidth;
      c.latency = l.params.latency;
      c.kind = kind;
      c.toNode = to;
      c.toSwitch = cluster.nodes[to].kind == NodeKind::Switch;
      c.fromSwitch = cluster.nodes[from].kind == NodeKind::Switch;
      c.toBridge = cluster.nodes[to].kind == NodeKind::Nic || cluster.nodes[to].kind == NodeKind::PcieSwitch;
      c.ecn = &model_.ecn;
      c.buffer = model_.switchBuffer;
      for (const auto& sw : model_.switches) {
        if (!c.fromSwitch || !sw.matches(cluster.nodes[from].name)) continue;
        if (sw.ecn) c.ecn = &*sw.ecn;
        if (sw.buffer) c.buffer = *sw.buffer;
      }
      channels_.push_back(std::move(c));
    }
  }
}

std::uint32_t PacketNetwork::connection(int src, int dst) {
  std::uint64_t key = std::uint64_t(src) << 32 | std::uint32_t(dst);
  if (auto it = connections_.find(key); it != connections_.end()) return it->second;
  auto first = std::uint32_t(qps_.size());
  connections_.emplace(key, first);
  Routing::Route probe = routing_.route(src, dst, 0);
  bool roce = false;
  for (std::uint32_t h = 0; h < probe.hops; ++h) roce |= channels_[routing_.channel(probe, h)].kind == LinkKind::Roce;
  int count = roce ? model_.queuePairs : 1; // HCCS paths: one ordered stream
  for (int i = 0; i < count; ++i) {
    QueuePair q;
    q.src = src;
    q.dst = dst;
    q.route = routing_.route(src, dst, std::uint32_t(i));
    q.firstChannel = routing_.channel(q.route, 0);
    q.roce = roce;
    q.controlDelay = 0;
    q.lineRate = channels_[q.firstChannel].bandwidth;
    for (std::uint32_t h = 0; h < q.route.hops; ++h) {
      const Channel& c = channels_[routing_.channel(q.route, h)];
      q.controlDelay += c.latency + serializationTime(kControlFrame, c.bandwidth);
      if (c.kind == LinkKind::Roce) q.lineRate = std::min(q.lineRate, c.bandwidth);
    }
    qps_.push_back(std::move(q));
    qps_.back().rate = DcqcnRate(&model_.dcqcn, qps_.back().lineRate);
  }
  return first;
}

void PacketNetwork::send(int src, int dst, Bytes bytes, std::uint64_t cookie) {
  std::uint32_t m = messages_.add({cookie, 0, engine_.now()});
  if (src == dst) { // nothing crosses a link
    messages_[m].partsLeft = 1;
    engine_.scheduleAfter(0, this, event(m, kLocal));
    return;
  }
  std::uint32_t first = connection(src, dst);
  int count = qps_[first].roce ? model_.queuePairs : 1;
  const Bytes mtu = model_.mtu;
  Bytes packets = std::max<Bytes>(1, (bytes + mtu - 1) / mtu);
  // Whole packets per QP, as even as they go; a small message uses fewer QPs.
  Bytes perQp = (packets + Bytes(count) - 1) / Bytes(count);
  Bytes left = bytes;
  for (int i = 0; i < count && (i == 0 || left > 0); ++i) {
    Bytes part = std::min(left, perQp * mtu);
    left -= part;
    QueuePair& q = qps_[first + std::uint32_t(i)];
    auto n = std::uint32_t(std::max<Bytes>(1, (part + mtu - 1) / mtu));
    q.parts.push_back({m, part, q.endSeq, q.endSeq + n});
    q.endSeq += n;
    ++messages_[m].partsLeft;
    activate(first + std::uint32_t(i));
  }
}

void PacketNetwork::activate(std::uint32_t id) {
  armTimers(id);
  QueuePair& q = qps_[id];
  if (q.nextSeq >= q.endSeq || q.listed) return;
  q.listed = true;
  channels_[q.firstChannel].sources.push_back(id);
  kick(q.firstChannel);
}

Bytes PacketNetwork::wireBytes(const Channel& c, const Packet& p) const {
  if (c.kind != LinkKind::Roce) return p.payload;
  return p.payload + kRocePacketOverhead + (p.first ? kRethBytes : 0);
}

std::uint32_t PacketNetwork::makePacket(std::uint32_t id) {
  QueuePair& q = qps_[id];
  std::uint32_t seq = q.nextSeq++;
  auto part = std::find_if(q.parts.begin(), q.parts.end(), [&](const Part& p) { return p.endSeq > seq; });
  std::uint32_t index = seq - part->firstSeq;
  Bytes payload = index + 1 < part->endSeq - part->firstSeq ? Bytes(model_.mtu) : part->bytes - Bytes(index) * model_.mtu;
  if (seq < q.sentHigh) ++resent_;
  else q.sentHigh = seq + 1;
  ++packetsSent_;
  return packets_.add({id, seq, std::uint32_t(payload), 0, 0, kNone, index == 0, false});
}

void PacketNetwork::freePacket(std::uint32_t p) { packets_.release(p); }

void PacketNetwork::wakeAt(std::uint32_t c, Time at) {
  channels_[c].wakeAt = at;
  engine_.schedule(at, this, event(c, kChannelFree));
}

// Something joined channel c: send now if it is idle, else make sure it
// wakes up when it is free.
void PacketNetwork::kick(std::uint32_t c) {
  Channel& ch = channels_[c];
  if (ch.paused) return;
  Time ready = std::max(engine_.now(), ch.freeAt);
  if (ch.wakeAt <= ready) return; // a wake-up comes soon enough
  if (ready == engine_.now()) startNext(c);
  else wakeAt(c, ready);
}

// The next packet from the channel's transit queue or one of its source
// QPs, in turn; QPs held back by their rate report when they may go.
bool PacketNetwork::pickSource(Channel& ch, std::uint32_t& packet, bool& fromFifo, Time& retryAt) {
  const Time now = engine_.now();
  for (std::size_t tried = 0, slots = ch.sources.size() + 1; tried < slots; ++tried) {
    std::size_t slot = ch.turn % slots;
    ch.turn = slot + 1;
    if (slot == 0) {
      if (ch.fifo.empty()) continue;
      packet = ch.fifo.front();
      ch.fifo.pop_front();
      fromFifo = true;
      return true;
    }
    std::uint32_t id = ch.sources[slot - 1];
    QueuePair& q = qps_[id];
    if (q.nextSeq >= q.endSeq) { // nothing left: leave the rotation
      q.listed = false;
      ch.sources.erase(ch.sources.begin() + std::ptrdiff_t(slot - 1));
      --slots;
      ch.turn = slot;
      --tried;
      continue;
    }
    if (q.nextSendAt > now) {
      retryAt = std::min(retryAt, q.nextSendAt);
      continue;
    }
    packet = makePacket(id);
    fromFifo = false;
    return true;
  }
  return false;
}

void PacketNetwork::startNext(std::uint32_t c) {
  Channel& ch = channels_[c];
  if (ch.paused || engine_.now() < ch.freeAt) return kick(c);
  std::uint32_t p = kNone;
  bool fromFifo = false;
  Time retryAt = kNever;
  if (!pickSource(ch, p, fromFifo, retryAt)) {
    if (retryAt != kNever && ch.wakeAt > retryAt) wakeAt(c, retryAt);
    return;
  }
  if (fromFifo) releaseIngress(ch, packets_[p]);
  transmit(c, p);
}

// A packet leaves a queue: its bytes no longer count against the queue, nor
// against the ingress link it came in on (PFC may resume that link).
void PacketNetwork::releaseIngress(Channel& out, const Packet& p) {
  out.queuedBytes -= std::min(out.queuedBytes, Bytes(p.wire));
  if (p.ingress == kNone) return;
  Channel& in = channels_[p.ingress];
  in.ingressBytes -= std::min(in.ingressBytes, Bytes(p.wire));
  Bytes resumeBelow = in.toBridge ? kBridgeXon : model_.pfc.xon;
  if (in.pauseRequested && in.ingressBytes <= resumeBelow) {
    in.pauseRequested = false;
    engine_.scheduleAfter(in.latency, this, event(p.ingress, kResume));
  }
}

void PacketNetwork::transmit(std::uint32_t c, std::uint32_t p) {
  Channel& ch = channels_[c];
  Packet& pk = packets_[p];
  pk.ingress = kNone;
  Bytes wire = wireBytes(ch, pk);
  pk.wire = std::uint32_t(wire);
  const Time now = engine_.now();
  if (now > ch.freeAt) { // the channel was idle: close the last busy period
    if (trace_ && ch.freeAt > ch.busySince) trace_->channelBusy(c, ch.busySince, ch.freeAt);
    ch.busySince = now;
  }
  Time duration = serializationTime(wire, ch.bandwidth);
  ch.freeAt = now + duration;
  ch.busy += duration;
  ch.payload += pk.payload;
  ch.wire += wire;
  ++packetHops_;
  if (pk.hop == 0) { // leaving its sender: the QP's rate decides when the next may go
    QueuePair& q = qps_[pk.qp];
    if (q.roce && model_.dcqcn.enabled) {
      q.rate.onSent(wire);
      q.nextSendAt = q.rate.limited() ? now + Time(double(wire) / q.rate.rate() * double(kPsPerSec)) : now;
      armTimers(pk.qp);
    }
    if (q.roce && model_.retransmitTimeout > 0 && !q.rtoTimer) {
      q.rtoTimer = true;
      q.progressAtArm = q.progress;
      engine_.scheduleAfter(model_.retransmitTimeout, this, event(std::uint64_t(pk.qp) << 2 | kRetransmitTimer, kTimer));
    }
  }
  JitterSource& jitter = ch.kind == LinkKind::Roce ? roceJitter_ : hccsJitter_;
  Time arrival = ch.freeAt + ch.latency + (jitter.none() ? 0 : jitter.draw());
  arrival = std::max(arrival, ch.lastArrival); // no overtaking on one link
  ch.lastArrival = arrival;
  engine_.schedule(arrival, this, event(p, kArrive));
  if ((!ch.fifo.empty() || !ch.sources.empty()) && ch.wakeAt > ch.freeAt) wakeAt(c, ch.freeAt);
}

void PacketNetwork::arrive(std::uint32_t p) {
  Packet& pk = packets_[p];
  const QueuePair& q = qps_[pk.qp];
  std::uint32_t in = routing_.channel(q.route, pk.hop);
  if (++pk.hop == q.route.hops) return receive(p);
  const Channel& inCh = channels_[in];
  enqueue(routing_.channel(q.route, pk.hop), p, inCh.toSwitch || inCh.toBridge ? in : kNone);
}

void PacketNetwork::enqueue(std::uint32_t c, std::uint32_t p, std::uint32_t ingress) {
  Channel& out = channels_[c];
  Packet& pk = packets_[p];
  Bytes wire = wireBytes(out, pk);
  pk.wire = std::uint32_t(wire);
  if (out.fromSwitch) {
    if (!model_.pfc.enabled && out.queuedBytes + wire > out.buffer) {
      ++drops_;
      freePacket(p);
      return;
    }
    const EcnModel& e = *out.ecn;
    if (e.enabled && out.kind == LinkKind::Roce && out.queuedBytes > e.kmin) {
      double chance = out.queuedBytes >= e.kmax
                          ? 1.0
                          : e.pmax * double(out.queuedBytes - e.kmin) / double(std::max<Bytes>(1, e.kmax - e.kmin));
      if (std::uniform_real_distribution<double>(0.0, 1.0)(ecnRng_) < chance) {
        pk.ecn = true;
        ++ecnMarks_;
      }
    }
    queueDepth_.add(out.queuedBytes + wire);
    pk.ingress = ingress;
    if (ingress != kNone) {
      Channel& inCh = channels_[ingress];
      inCh.ingressBytes += wire;
      if (model_.pfc.enabled && !inCh.pauseRequested && inCh.ingressBytes > model_.pfc.xoff) {
        inCh.pauseRequested = true;
        ++pauseFrames_;
        engine_.scheduleAfter(inCh.latency, this, event(ingress, kPause));
      }
    }
  } else if (ingress != kNone) {
    // A NIC or PCIe switch: no marking, no drops; its inputs are held back instead.
    pk.ingress = ingress;
    Channel& inCh = channels_[ingress];
    inCh.ingressBytes += wire;
    if (!inCh.pauseRequested && inCh.ingressBytes > kBridgeXoff) {
      inCh.pauseRequested = true;
      engine_.scheduleAfter(inCh.latency, this, event(ingress, kPause));
    }
  }
  out.fifo.push_back(p);
  out.queuedBytes += wire;
  kick(c);
}

void PacketNetwork::receive(std::uint32_t p) {
  const Packet pk = packets_[p];
  freePacket(p);
  QueuePair& q = qps_[pk.qp];
  const Time now = engine_.now();
  if (pk.ecn && model_.dcqcn.enabled && (q.lastCnp < 0 || now - q.lastCnp >= model_.dcqcn.cnpInterval)) {
    q.lastCnp = now;
    ++cnps_;
    sendControl(pk.qp, Control::Cnp, 0);
  }
  if (pk.seq > q.expected) { // a gap: something was dropped
    if (!q.nackOutstanding) {
      q.nackOutstanding = true;
      sendControl(pk.qp, Control::Nack, q.expected);
    }
    return;
  }
  if (pk.seq < q.expected) { // a duplicate after going back: tell the sender how far we are
    if (q.roce && q.lastAckSent != q.expected) {
      q.lastAckSent = q.expected;
      sendControl(pk.qp, Control::Ack, q.expected);
    }
    return;
  }
  ++q.expected;
  q.nackOutstanding = false;
  q.delivered += pk.payload;
  const Part& part = q.parts[q.receivedParts];
  bool partDone = q.expected == part.endSeq;
  // Acknowledge each part's end, every few packets, and whatever came in
  // after a quiet spell (a throttled QP must not wait long for its ACKs).
  if (partDone || ++q.sinceAck >= std::uint32_t(model_.ackEvery) || now - q.lastAckAt >= kAckInterval) {
    q.sinceAck = 0;
    q.lastAckSent = q.expected;
    q.lastAckAt = now;
    if (q.roce) sendControl(pk.qp, Control::Ack, q.expected);
  }
  if (!partDone) return;
  std::uint32_t m = part.message;
  ++q.receivedParts;
  if (!q.roce) { // nothing to resend on HCCS: done with the part
    q.parts.pop_front();
    --q.receivedParts;
    q.ackedSeq = q.expected;
  }
  if (--messages_[m].partsLeft > 0) return;
  latency_.add(now - messages_[m].sentAt);
  std::uint64_t cookie = messages_[m].cookie;
  messages_.release(m);
  if (listener_) listener_->onDelivered(cookie); // may send: no references held past here
}

void PacketNetwork::sendControl(std::uint32_t qp, Control kind, std::uint32_t seq) {
  std::uint32_t id = controls_.add({qp, kind, seq});
  engine_.scheduleAfter(qps_[qp].controlDelay, this, event(id, kControl));
}

void PacketNetwork::onControl(std::uint32_t id, Control kind, std::uint32_t seq) {
  QueuePair& q = qps_[id];
  switch (kind) {
  case Control::Cnp:
    q.rate.onCnp();
    armTimers(id);
    break;
  case Control::Ack:
    if (seq <= q.ackedSeq) break;
    q.ackedSeq = seq;
    ++q.progress;
    if (q.nextSeq < seq) q.nextSeq = seq; // went back too far: the receiver has these
    while (!q.parts.empty() && q.parts.front().endSeq <= seq) {
      q.parts.pop_front();
      --q.receivedParts;
    }
    break;
  case Control::Nack:
    ++q.progress;
    goBack(id, seq);
    break;
  }
}

void PacketNetwork::goBack(std::uint32_t id, std::uint32_t seq) {
  QueuePair& q = qps_[id];
  if (seq >= q.nextSeq) return;
  q.nextSeq = seq;
  activate(id);
}

// DCQCN's timers run while the QP is below line rate and has data out or
// waiting; an idle QP keeps its rate until it sends again.
void PacketNetwork::armTimers(std::uint32_t id) {
  QueuePair& q = qps_[id];
  if (!model_.dcqcn.enabled || !q.rate.limited() || q.ackedSeq >= q.endSeq) return;
  if (!q.alphaTimer) {
    q.alphaTimer = true;
    engine_.scheduleAfter(model_.dcqcn.alphaPeriod, this, event(std::uint64_t(id) << 2 | kAlphaTimer, kTimer));
  }
  if (!q.increaseTimer) {
    q.increaseTimer = true;
    engine_.scheduleAfter(model_.dcqcn.increasePeriod, this, event(std::uint64_t(id) << 2 | kIncreaseTimer, kTimer));
  }
}

void PacketNetwork::onTimer(std::uint32_t id, int which) {
  QueuePair& q = qps_[id];
  if (which == kAlphaTimer) {
    q.alphaTimer = false;
    q.rate.onAlphaTimer();
    armTimers(id);
  } else if (which == kIncreaseTimer) {
    q.increaseTimer = false;
    q.rate.onIncreaseTimer();
    armTimers(id);
  } else {
    q.rtoTimer = false;
    if (q.ackedSeq >= q.endSeq) return; // all acknowledged
    if (q.progress == q.progressAtArm && q.nextSeq > q.ackedSeq) {
      ++timeouts_;
      goBack(id, q.ackedSeq);
    }
    q.rtoTimer = true;
    q.progressAtArm = q.progress;
    engine_.scheduleAfter(model_.retransmitTimeout, this, event(std::uint64_t(id) << 2 | kRetransmitTimer, kTimer));
  }
}

void PacketNetwork::onEvent(std::uint64_t arg) {
  std::uint64_t who = arg >> 3;
  switch (arg & 7) {
  case kChannelFree:
    if (channels_[who].wakeAt != engine_.now()) break; // superseded by an earlier wake-up
    channels_[who].wakeAt = kNever;
    startNext(std::uint32_t(who));
    break;
  case kArrive: arrive(std::uint32_t(who)); break;
  case kControl: {
    ControlPacket c = controls_[std::uint32_t(who)];
    controls_.release(std::uint32_t(who));
    onControl(c.qp, c.kind, c.seq);
    break;
  }
  case kTimer: onTimer(std::uint32_t(who >> 2), int(who & 3)); break;
  case kPause: {
    Channel& ch = channels_[who];
    if (!ch.paused && ch.pauseRequested) {
      ch.paused = true;
      ch.pausedSince = engine_.now();
    }
    break;
  }
  case kResume: {
    Channel& ch = channels_[who];
    if (ch.paused) {
      ch.pausedTotal += engine_.now() - ch.pausedSince;
      ch.paused = false;
      kick(std::uint32_t(who));
    }
    break;
  }
  case kLocal: {
    std::uint32_t m = std::uint32_t(who);
    latency_.add(0);
    std::uint64_t cookie = messages_[m].cookie;
    messages_.release(m);
    if (listener_) listener_->onDelivered(cookie);
    break;
  }
  }
}

void PacketNetwork::flushTrace() {
  if (!trace_) return;
  for (std::uint32_t c = 0; c < channels_.size(); ++c)
    if (channels_[c].freeAt > channels_[c].busySince) trace_->channelBusy(c, channels_[c].busySince, channels_[c].freeAt);
}

std::vector<PacketNetwork::QpView> PacketNetwork::queuePairs() const {
  std::vector<QpView> v;
  for (const auto& q : qps_) v.push_back({q.src, q.dst, q.delivered, q.rate.rate()});
  return v;
}

NetworkMetrics PacketNetwork::metrics(Time runTime) const {
  NetworkMetrics m;
  m.fidelity = "packet";
  LinkUsageTally tally(cluster_, runTime);
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    const Channel& c = channels_[i];
    tally.add(i, c.busy, c.bandwidth, c.payload, c.wire);
    if (c.toSwitch) m.pauseTime += c.pausedTotal + (c.paused ? engine_.now() - c.pausedSince : 0); // PFC only
  }
  tally.fill(m);
  m.packets = packetsSent_;
  m.packetHops = packetHops_;
  m.queueP50 = queueDepth_.quantile(0.5);
  m.queueP99 = queueDepth_.quantile(0.99);
  m.queueMax = queueDepth_.max();
  m.ecnMarks = ecnMarks_;
  m.cnps = cnps_;
  m.drops = drops_;
  m.retransmittedPackets = resent_;
  m.timeouts = timeouts_;
  m.pauseFrames = pauseFrames_;
  m.latencyP50 = latency_.quantile(0.5);
  m.latencyP99 = latency_.quantile(0.99);
  m.latencyP999 = latency_.quantile(0.999);
  m.messages = latency_.count();
  return m;
}

} // namespace collsim
