#include "sim/network/link_network.h"

#include <algorithm>
#include <stdexcept>

#include "sim/network/rank_symmetry.h"


namespace collsim {
namespace {

// Event argument: the low bit says which event, the rest who it is for.
constexpr std::uint64_t kChannelFree = 0;
constexpr std::uint64_t kSegmentArrives = 1;
constexpr std::uint32_t kMaxHops = 255;
constexpr std::uint32_t kNoTail = ~std::uint32_t(0);

std::uint64_t pack(std::uint32_t msg, std::uint32_t hop) { return std::uint64_t(msg) << 8 | hop; }
std::uint32_t messageOf(std::uint64_t packed) { return std::uint32_t(packed >> 8); }
std::uint32_t hopOf(std::uint64_t packed) { return std::uint32_t(packed & 0xff); }

} // namespace

LinkNetwork::LinkNetwork(EventEngine& engine, const Cluster& cluster, std::uint32_t roceMtu, Bytes segmentSize,
                         int queuePairs)
    : engine_(engine), cluster_(cluster), routing_(cluster), mtu_(roceMtu), segment_(segmentSize),
      queuePairs_(std::max(1, queuePairs)) {
  if (segment_ == 0) throw std::invalid_argument("segment size must be positive");
  channels_.reserve(2 * cluster.links.size());
  auto isSwitch = [&](int node) { return cluster.nodes[std::size_t(node)].kind == NodeKind::Switch; };
  for (const auto& l : cluster.links) {
    bool roce = l.tier == LinkTier::ScaleOut; // RoCE framing
    channels_.push_back(Channel{l.params.bandwidth, l.params.latency, roce, isSwitch(l.a), 0, false, BusyPeriod{}, {}});
    channels_.push_back(Channel{l.params.bandwidth, l.params.latency, roce, isSwitch(l.b), 0, false, BusyPeriod{}, {}});
  }
  stats_.resize(channels_.size());
}

Bytes LinkNetwork::segmentBytes(const Message& m, std::uint32_t index) const {
  return index + 1 < m.segments ? segment_ : m.bytes - Bytes(m.segments - 1) * segment_;
}

// Over RoCE with several queue pairs the message is striped as the packet
// model stripes it, each QP's part on the ECMP path its number hashes to.
void LinkNetwork::send(int src, int dst, Bytes bytes, std::uint64_t cookie) {
  int count = 1;
  if (queuePairs_ > 1) {
    Routing::Route probe = routing_.route(src, dst);
    for (std::uint32_t h = 0; h < probe.hops && count == 1; ++h)
      if (channels_[routing_.channel(probe, h)].roce) count = queuePairs_;
  }
  const QpStripe split = stripeOverQueuePairs(bytes, mtu_, count);
  if (split.parts == 1) return sendPart(src, dst, bytes, 0, cookie, kNoStripe);
  std::uint32_t stripe = stripes_.add({cookie, split.parts, engine_.now()});
  Bytes left = bytes;
  for (std::uint32_t i = 0; i < split.parts; ++i) {
    Bytes part = std::min(left, split.partBytes);
    left -= part;
    sendPart(src, dst, part, i, 0, stripe);
  }
}

void LinkNetwork::sendPart(int src, int dst, Bytes bytes, std::uint32_t flow, std::uint64_t cookie,
                           std::uint32_t stripe) {
  Routing::Route route = routing_.route(src, dst, flow);
  if (route.hops > kMaxHops) throw std::runtime_error("route longer than 255 hops");
  std::uint32_t id = messages_.acquire();
  Message& m = messages_[id];
  m.route = route;
  m.segments = bytes == 0 ? 1 : std::uint32_t((bytes + segment_ - 1) / segment_);
  m.delivered = 0;
  m.bytes = bytes;
  m.cookie = cookie;
  m.sentAt = engine_.now();
  m.stripe = stripe;
  m.hops.assign(route.hops, Hop{0, 0, kNoTail, kNoTail});
  if (route.hops == 0) { // same node: nothing crosses a link
    m.delivered = m.segments - 1;
    engine_.scheduleAfter(0, this, pack(id, 0) << 1 | kSegmentArrives);
    return;
  }
  m.hops[0].queued = m.segments;
  std::uint32_t c = routing_.channel(route, 0);
  channels_[c].waiting.push_back(pack(id, 0));
  kick(c);
}

void LinkNetwork::onEvent(std::uint64_t arg) {
  if ((arg & 1) == kChannelFree) {
    std::uint32_t c = std::uint32_t(arg >> 1);
    channels_[c].wakeupPending = false;
    startNext(c);
  } else {
    arrive(messageOf(arg >> 1), hopOf(arg >> 1));
  }
}

// A segment joined channel c's queue: start it now if the channel is idle,
// else make sure the channel wakes up when it is free.
void LinkNetwork::kick(std::uint32_t c) {
  Channel& ch = channels_[c];
  if (ch.wakeupPending) return;
  if (engine_.now() >= ch.freeAt) {
    startNext(c);
  } else {
    ch.wakeupPending = true;
    engine_.schedule(ch.freeAt, this, std::uint64_t(c) << 1 | kChannelFree);
  }
}

// Serializes the next waiting segment. The segment's arrival at the next hop
// is scheduled right away; a wake-up at the end of the serialization is
// scheduled only when other segments wait, so an uncontended hop costs one
// event per segment.
void LinkNetwork::startNext(std::uint32_t c) {
  Channel& ch = channels_[c];
  if (ch.waiting.empty()) return;
  std::uint64_t head = ch.waiting.front();
  ch.waiting.pop_front();
  Message& m = messages_[messageOf(head)];
  std::uint32_t hop = hopOf(head);
  --m.hops[hop].queued;
  std::uint32_t index = m.hops[hop].sent++;
  Bytes bytes = segmentBytes(m, index);
  // On RoCE the segment goes as MTU packets, each with its framing.
  Bytes wire = wireBytes(ch, bytes, index == 0);
  if (m.hops[hop].queued > 0) ch.waiting.push_back(head); // round robin: back of the line

  Time now = engine_.now();
  ch.busy.onStart(trace_, c, now, ch.freeAt);
  // Forwarding is packet by packet: the segment started here when its first
  // packet had arrived, and cannot end before its last packet has arrived
  // and gone out again.
  bool last = hop + 1 == m.route.hops;
  Time packet = last && hop == 0 ? 0 // a one-hop message needs no packet timing
                                 : serializationTime(wireBytes(ch, std::min<Bytes>(bytes, mtu_), index == 0), ch.bandwidth);
  Time end = now + serializationTime(wire, ch.bandwidth);
  if (hop > 0) end = std::max(end, popTail(m, hop) + packet);
  Time duration = end - now;
  ch.freeAt = end;
  stats_[c].bytes += bytes;
  stats_[c].wire += wire;
  stats_[c].busy += duration;
  if (!last) pushTail(m, hop + 1, end + ch.latency);
  Time next = last ? end + ch.latency : now + packet + ch.latency;
  engine_.schedule(next, this, pack(messageOf(head), hop + 1) << 1 | kSegmentArrives);
  if (!ch.waiting.empty()) {
    ch.wakeupPending = true;
    engine_.schedule(ch.freeAt, this, std::uint64_t(c) << 1 | kChannelFree);
  }
}

Bytes LinkNetwork::wireBytes(const Channel& ch, Bytes bytes, bool first) const {
  if (!ch.roce) return bytes;
  return bytes + std::max<Bytes>(1, (bytes + mtu_ - 1) / mtu_) * kRocePacketOverhead + (first ? kRethBytes : 0);
}

void LinkNetwork::pushTail(Message& m, std::uint32_t hop, Time at) {
  std::uint32_t id = tailPool_.add({at, kNoTail});
  if (m.hops[hop].tailLast == kNoTail) m.hops[hop].tailFirst = id;
  else tailPool_[m.hops[hop].tailLast].next = id;
  m.hops[hop].tailLast = id;
}

Time LinkNetwork::popTail(Message& m, std::uint32_t hop) {
  std::uint32_t id = m.hops[hop].tailFirst;
  TailArrival t = tailPool_[id];
  tailPool_.release(id);
  m.hops[hop].tailFirst = t.next;
  if (t.next == kNoTail) m.hops[hop].tailLast = kNoTail;
  return t.at;
}

void LinkNetwork::flushTrace() {
  for (std::uint32_t c = 0; c < channels_.size(); ++c) channels_[c].busy.flush(trace_, c, channels_[c].freeAt);
}

NetworkMetrics LinkNetwork::metrics(Time runTime) const {
  NetworkMetrics m;
  m.fidelity = "fast";
  LinkUsageTally tally(cluster_, runTime);
  for (std::size_t i = 0; i < channels_.size(); ++i) {
    const ChannelStats& s = stats_[fold_.empty() ? i : fold_[i] & ~kFixedChannel];
    tally.add(i, s.busy, channels_[i].bandwidth, s.bytes, s.wire);
  }
  tally.fill(m);
  m.latencyP50 = latency_.quantile(0.5);
  m.latencyP99 = latency_.quantile(0.99);
  m.latencyP999 = latency_.quantile(0.999);
  m.messages = latency_.count() * std::uint64_t(copies_);
  m.switchPortSharing = maxSharing_;
  if (maxSharing_ > 0) {
    const ClusterLink& l = cluster_.links[sharedChannel_ / 2];
    const bool back = sharedChannel_ % 2;
    m.switchPortShared = cluster_.nodes[std::size_t(back ? l.b : l.a)].name + " -> " +
                         cluster_.nodes[std::size_t(back ? l.a : l.b)].name;
  }
  return m;
}

bool LinkNetwork::fold(const std::vector<std::uint32_t>& channelFold, int copies) {
  if (channelFold.size() != channels_.size()) throw std::invalid_argument("fold: one representative per channel");
  routing_.fold(channelFold);
  fold_ = channelFold;
  copies_ = copies;
  return true;
}

void LinkNetwork::delivered(std::uint64_t cookie, Time sentAt) {
  latency_.add(engine_.now() - sentAt);
  if (listener_) listener_->onDelivered(cookie);
}

void LinkNetwork::arrive(std::uint32_t id, std::uint32_t hop) {
  Message& m = messages_[id];
  if (hop == m.route.hops) {
    if (++m.delivered == m.segments) {
      const std::uint64_t cookie = m.cookie;
      const std::uint32_t stripe = m.stripe;
      const Time sentAt = m.sentAt;
      messages_.release(id);
      if (stripe == kNoStripe) return delivered(cookie, sentAt);
      if (--stripes_[stripe].partsLeft > 0) return;
      Stripe whole = stripes_[stripe];
      stripes_.release(stripe);
      delivered(whole.cookie, whole.sentAt);
    }
    return;
  }
  std::uint32_t c = routing_.channel(m.route, hop);
  Channel& ch = channels_[c];
  if (m.hops[hop].queued++ == 0) {
    ch.waiting.push_back(pack(id, hop));
    if (ch.fromSwitch && int(ch.waiting.size()) > maxSharing_) {
      maxSharing_ = int(ch.waiting.size());
      sharedChannel_ = c;
    }
  }
  kick(c);
}

} // namespace collsim
