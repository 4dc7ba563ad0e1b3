// The link-level network model.
//
// Every link is full duplex: two channels, each with a bandwidth, a
// propagation latency and an egress queue. A message follows its route and
// is cut into segments. Each channel serializes one segment at a time
// (bytes / bandwidth), then the segment propagates (latency) to the next
// hop, which forwards it only once it has fully arrived (store and forward).
// Messages waiting for the same channel take turns segment by segment, so
// they share its bandwidth fairly.
//
// The segment size is the fidelity knob: the RoCE MTU for packet-level
// runs, a larger size for fast runs. On one hop the result does not depend
// on it; over h hops a message of n bytes takes
// h * latency + (n + (h-1) * segment) / bandwidth when nothing else is on
// the way.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "sim/core/event_engine.h"
#include "sim/network/routing.h"

namespace collsim {

class TraceSink;

class DeliveryListener {
public:
  virtual void onDelivered(std::uint64_t cookie) = 0;

protected:
  ~DeliveryListener() = default;
};

struct ChannelStats {
  Bytes bytes = 0;   // payload serialized
  Time busy = 0;     // time spent serializing
};

class LinkNetwork final : public EventHandler {
public:
  LinkNetwork(EventEngine& engine, const Cluster& cluster, Bytes segmentSize);

  void setListener(DeliveryListener* listener) { listener_ = listener; }
  void setTrace(TraceSink* trace) { trace_ = trace; }

  // Starts sending `bytes` from node `src` to node `dst` now; the listener
  // hears `cookie` once the last byte has arrived.
  void send(int src, int dst, Bytes bytes, std::uint64_t cookie);

  void onEvent(std::uint64_t arg) override;

  // Reports the busy periods still open to the trace (at the end of a run).
  void flushTrace();

  const std::vector<ChannelStats>& channelStats() const { return stats_; }
  Bytes segmentSize() const { return segment_; }

private:
  struct Channel {
    Bandwidth bandwidth;
    Time latency;
    Time freeAt = 0;                   // end of the current serialization
    bool wakeupPending = false;        // a kChannelFree event is scheduled
    Time busySince = 0;                // start of the current busy period (trace)
    std::deque<std::uint64_t> waiting; // (message, hop) pairs, round robin
  };
  struct Message {
    Routing::Route route;
    std::uint32_t segments;
    std::uint32_t delivered;
    Bytes bytes;
    std::uint64_t cookie;
    std::vector<std::uint32_t> queued; // per hop: segments waiting to go out
    std::vector<std::uint32_t> sent;   // per hop: segments already sent
  };

  Bytes segmentBytes(const Message& m, std::uint32_t index) const;
  void arrive(std::uint32_t msg, std::uint32_t hop);
  void kick(std::uint32_t channel);
  void startNext(std::uint32_t channel);
  std::uint32_t allocateMessage();

  EventEngine& engine_;
  Routing routing_;
  Bytes segment_;
  std::vector<Channel> channels_;
  std::vector<ChannelStats> stats_;
  std::vector<Message> messages_;
  std::vector<std::uint32_t> freeMessages_;
  DeliveryListener* listener_ = nullptr;
  TraceSink* trace_ = nullptr;
};

} // namespace collsim
