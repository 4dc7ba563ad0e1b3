// The packet-level network model (RoCE v2 between servers).
//
// A message from one device to another is striped over the connection's
// queue pairs (RoceModel::queuePairs; each QP hashes onto its own ECMP path)
// and cut into MTU packets. The sending device serves its QPs round robin,
// each QP no faster than its DCQCN rate. A packet crosses each link at the
// link's bandwidth with its framing on the wire (RoCE links: 82 bytes per
// packet, 16 more on a message's first), waits in switch egress queues
// (FIFO, finite buffer per port), and takes the link's latency plus a
// jitter draw (never overtaking the packet before it on that link).
//
// Switches mark ECN on their egress queues (RED: Kmin, Kmax, Pmax). With PFC,
// a switch whose buffered bytes from one ingress link pass XOFF pauses the
// link's sender until they fall below XON (the pause takes the link's
// latency to arrive): nothing is dropped, and congestion spreads upstream.
// Without PFC a full egress queue drops the packet; the receiver, which
// accepts packets of a QP only in order, answers a gap with a NACK and the
// sender goes back to the missing packet (go-back-N), or resends from the
// last acknowledged one after a timeout without progress.
//
// Receivers send a CNP for marked packets at most once per CNP interval per
// QP, acknowledge every few packets (and after 10 us without an ACK), and
// NACK gaps. These control packets
// travel in a strict-priority class: they take the reverse path's latency
// and 64-byte serialization per hop, but never queue behind data.
//
// HCCS and PCIe links carry packets of the same size without framing, no
// congestion control and their own (small) jitter.
#pragma once

#include <deque>
#include <limits>
#include <random>
#include <unordered_map>
#include <vector>

#include "sim/core/index_pool.h"
#include "sim/network/dcqcn.h"
#include "sim/network/jitter.h"
#include "sim/network/network.h"
#include "sim/network/routing.h"
#include "sim/network/sample_set.h"

namespace collsim {

class PacketNetwork final : public Network, public EventHandler {
public:
  PacketNetwork(EventEngine& engine, const Cluster& cluster, std::uint64_t seed);

  void send(int src, int dst, Bytes bytes, std::uint64_t cookie) override;
  void flushTrace() override;
  NetworkMetrics metrics(Time runTime) const override;
  void onEvent(std::uint64_t arg) override;

  // Payload bytes of `qp`'s messages delivered so far (tests: fairness).
  struct QpView {
    int src, dst;
    Bytes delivered;
    double rate; // DCQCN's current rate, bytes/s
  };
  std::vector<QpView> queuePairs() const;

private:
  static constexpr std::uint32_t kNone = ~std::uint32_t(0);
  static constexpr Time kNever = std::numeric_limits<Time>::max();

  enum class LinkKind : std::uint8_t { Roce, Other };
  struct Channel {
    Bandwidth bandwidth;
    Time latency;
    LinkKind kind;
    int toNode;
    bool toSwitch, fromSwitch; // an Ethernet switch at that end
    bool toBridge;             // into a NIC or PCIe switch: lossless, back-pressured
    const EcnModel* ecn = nullptr; // from a switch: its marking, and its buffer per port
    Bytes buffer = 0;
    Time freeAt = 0;
    Time wakeAt = kNever; // the pending wake-up; earlier ones supersede it
    Time busySince = 0;
    // PFC: paused by the downstream switch.
    bool paused = false;
    Time pausedSince = 0, pausedTotal = 0;
    bool pauseRequested = false; // the downstream switch has sent XOFF
    Bytes ingressBytes = 0;      // buffered in the downstream switch, arrived over this channel
    // Transit packets (switch egress queue, or a device forwarding).
    std::deque<std::uint32_t> fifo;
    Bytes queuedBytes = 0;
    // QPs whose first hop this is, served round robin with the FIFO.
    std::vector<std::uint32_t> sources;
    std::size_t turn = 0;
    Time lastArrival = 0; // FIFO order under jitter
    Bytes payload = 0, wire = 0;
    Time busy = 0;
  };
  struct Part { // one message's share on one QP
    std::uint32_t message;
    Bytes bytes;
    std::uint32_t firstSeq, endSeq;
  };
  struct QueuePair {
    int src, dst;
    Routing::Route route;
    std::uint32_t firstChannel;
    bool roce;           // crosses a RoCE link: DCQCN and go-back-N apply
    Time controlDelay;   // a control packet's way back
    Bandwidth lineRate;
    std::deque<Part> parts; // not yet acknowledged
    std::uint32_t nextSeq = 0, endSeq = 0, ackedSeq = 0, sentHigh = 0;
    Time nextSendAt = 0;
    bool listed = false; // in its first channel's sources
    DcqcnRate rate;
    bool alphaTimer = false, increaseTimer = false, rtoTimer = false;
    std::uint64_t progress = 0, progressAtArm = 0;
    // Receiver side.
    std::uint32_t expected = 0;
    std::size_t receivedParts = 0; // parts at the front of `parts` complete at the receiver
    bool nackOutstanding = false;
    Time lastCnp = -1;
    std::uint32_t sinceAck = 0, lastAckSent = 0;
    Time lastAckAt = 0;
    Bytes delivered = 0;
  };
  struct Packet {
    std::uint32_t qp, seq, payload;
    std::uint32_t wire;    // bytes on the link it is queued for or crossing
    std::uint32_t hop;     // index into the route of the link it is crossing
    std::uint32_t ingress; // channel it came in on, while buffered in a switch
    bool first;            // the first packet of a message's part (RETH)
    bool ecn;
  };
  struct Message {
    std::uint64_t cookie;
    std::uint32_t partsLeft;
    Time sentAt;
  };
  enum class Control : std::uint8_t { Cnp, Nack, Ack };

  std::uint32_t connection(int src, int dst); // creates its QPs on first use
  std::uint32_t makePacket(std::uint32_t qp);
  Bytes wireBytes(const Channel& c, const Packet& p) const;
  void kick(std::uint32_t channel);
  void startNext(std::uint32_t channel);
  bool pickSource(Channel& ch, std::uint32_t& packet, bool& fromFifo, Time& retryAt);
  void wakeAt(std::uint32_t channel, Time at);
  void transmit(std::uint32_t channel, std::uint32_t packet);
  void arrive(std::uint32_t packet);
  void enqueue(std::uint32_t channel, std::uint32_t packet, std::uint32_t ingress);
  void receive(std::uint32_t packet);
  void sendControl(std::uint32_t qp, Control kind, std::uint32_t seq);
  void onControl(std::uint32_t qp, Control kind, std::uint32_t seq);
  void goBack(std::uint32_t qp, std::uint32_t seq);
  void activate(std::uint32_t qp);
  void armTimers(std::uint32_t qp);
  void onTimer(std::uint32_t qp, int which);
  void releaseIngress(Channel& out, const Packet& p);
  void freePacket(std::uint32_t p);

  EventEngine& engine_;
  const Cluster& cluster_;
  RoceModel model_;
  Routing routing_;
  std::vector<Channel> channels_;
  std::vector<QueuePair> qps_;
  std::unordered_map<std::uint64_t, std::uint32_t> connections_; // (src, dst) -> its first QP
  IndexPool<Packet> packets_;
  IndexPool<Message> messages_;
  struct ControlPacket {
    std::uint32_t qp;
    Control kind;
    std::uint32_t seq;
  };
  IndexPool<ControlPacket> controls_;
  JitterSource roceJitter_, hccsJitter_;
  std::mt19937_64 ecnRng_; // fixed seed: marking does not depend on the scenario's seed
  // Metrics.
  SampleSet<Bytes> queueDepth_;
  SampleSet<Time> latency_;
  std::uint64_t packetsSent_ = 0, packetHops_ = 0, ecnMarks_ = 0, cnps_ = 0, drops_ = 0, resent_ = 0,
                timeouts_ = 0, pauseFrames_ = 0;
};

} // namespace collsim
