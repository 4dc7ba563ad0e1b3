// The link-level network model.
//
// Every link is full duplex: two channels, each with a bandwidth, a
// propagation latency and an egress queue. A message follows its route and
// is cut into segments. Each channel serializes one segment at a time
// (bytes / bandwidth), then the segment propagates (latency) to the next
// hop. Switches forward packet by packet (MTU packets), so the next hop may
// start a segment once its first packet is there, and cannot finish it
// before its last packet is. Messages waiting for the same channel take
// turns segment by segment, so they share its bandwidth fairly.
//
// This is the fast model: no per-packet congestion control. On RoCE links a
// segment still carries the framing of the MTU packets it stands for (82
// bytes each, 16 more on a message's first), so that an uncongested run
// agrees with the packet-level model. Without contention the result does
// not depend on the segment size: over h equal hops a message of n bytes
// takes h * latency + (n + (h-1) * packet) / bandwidth.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/fifo_queue.h"
#include "sim/core/index_pool.h"
#include "sim/network/busy_period.h"
#include "sim/network/network.h"
#include "sim/network/routing.h"
#include "sim/network/sample_set.h"

namespace collsim {

struct ChannelStats {
  Bytes bytes = 0;   // payload serialized
  Bytes wire = 0;    // with RoCE framing
  Time busy = 0;     // time spent serializing
};

class LinkNetwork final : public Network, public EventHandler {
public:
  // `queuePairs`: a message that crosses RoCE is striped over that many
  // parts, each hashed onto its own ECMP path, as the packet model's QPs are.
  LinkNetwork(EventEngine& engine, const Cluster& cluster, std::uint32_t roceMtu, Bytes segmentSize, int queuePairs = 1);

  void send(int src, int dst, Bytes bytes, std::uint64_t cookie) override;
  void onEvent(std::uint64_t arg) override;
  void flushTrace() override;
  NetworkMetrics metrics(Time runTime) const override;
  bool fold(const std::vector<std::uint32_t>& channelFold, int copies) override;

  const std::vector<ChannelStats>& channelStats() const { return stats_; }
  Bytes segmentSize() const { return segment_; }

private:
  struct Channel {
    Bandwidth bandwidth;
    Time latency;
    bool roce;                         // frames its segments as RoCE packets
    bool fromSwitch;                   // leaves an Ethernet switch
    Time freeAt = 0;                   // end of the current serialization
    bool wakeupPending = false;        // a kChannelFree event is scheduled
    BusyPeriod busy;                   // for the trace
    FifoQueue<std::uint64_t> waiting; // (message, hop) pairs, round robin
  };
  // A message's state at one hop of its route.
  struct Hop {
    std::uint32_t queued; // segments waiting to go out
    std::uint32_t sent;   // segments already sent
    // After the first hop: a FIFO (in tailPool_) of when the last byte of
    // each segment bound for it reaches its node; a message's segments
    // start at every hop in order.
    std::uint32_t tailFirst, tailLast;
  };
  struct Message {
    Routing::Route route;
    std::uint32_t segments;
    std::uint32_t delivered;
    Bytes bytes;
    std::uint64_t cookie;
    Time sentAt;
    std::uint32_t stripe;  // the striped message it is a part of, or kNoStripe
    std::vector<Hop> hops; // one vector, set once per message
  };
  // A message striped over queue pairs: delivered when its last part is.
  struct Stripe {
    std::uint64_t cookie;
    std::uint32_t partsLeft;
    Time sentAt;
  };
  static constexpr std::uint32_t kNoStripe = ~std::uint32_t(0);

  void sendPart(int src, int dst, Bytes bytes, std::uint32_t flow, std::uint64_t cookie, std::uint32_t stripe);
  void delivered(std::uint64_t cookie, Time sentAt);
  Bytes segmentBytes(const Message& m, std::uint32_t index) const;
  Bytes wireBytes(const Channel& ch, Bytes bytes, bool first) const;
  void arrive(std::uint32_t msg, std::uint32_t hop);
  void kick(std::uint32_t channel);
  void startNext(std::uint32_t channel);

  EventEngine& engine_;
  const Cluster& cluster_;
  Routing routing_;
  std::uint32_t mtu_;
  Bytes segment_;
  int queuePairs_;
  IndexPool<Stripe> stripes_;
  int maxSharing_ = 0;                     // the most messages waiting at once at a switch port
  std::uint32_t sharedChannel_ = 0;
  std::vector<Channel> channels_;
  std::vector<ChannelStats> stats_;
  IndexPool<Message> messages_; // reused with their per-hop vectors
  struct TailArrival {
    Time at;
    std::uint32_t next;
  };
  IndexPool<TailArrival> tailPool_;
  void pushTail(Message& m, std::uint32_t hop, Time at);
  Time popTail(Message& m, std::uint32_t hop);
  SampleSet<Time> latency_;
  std::vector<std::uint32_t> fold_; // folded: each channel's representative (empty: not folded)
  int copies_ = 1;                  // folded: the messages each one stands for
};

} // namespace collsim
