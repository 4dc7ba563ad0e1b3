// The packet-level network model (RoCE v2 between servers), after htsim:
// the parts are their own files, this class wires them to the event engine.
//
// A message from one device to another is striped over the connection's
// queue pairs (RoceModel::queuePairs; each QP hashes onto its own ECMP path)
// and cut into MTU packets by its sender QPs (sender_qp.h). Each port sends
// from its transit FIFO and the QPs that start there in turn, each QP no
// faster than its DCQCN rate (port_scheduler.h). A packet crosses each link
// at the link's bandwidth with its framing on the wire (RoCE links: 82
// bytes per packet, 16 more on a message's first), waits in switch egress
// queues (egress_port.h: finite buffer, RED/ECN), and takes the link's
// latency plus a jitter draw (never overtaking the packet before it).
//
// With PFC a switch pauses the links that feed it before its buffer can
// overflow (pfc_budget.h); the pause takes the link's latency to arrive and
// congestion spreads upstream. Without PFC a full queue drops the packet;
// the receiver (qp_receiver.h), which accepts a QP's packets in order only,
// answers a gap with a NACK and the sender goes back to the missing packet
// (go-back-N), or resends from the last acknowledged one after a timeout.
// NICs shared over PCIe and PCIe switches never mark or drop: they hold
// back their inputs (PCIe credits).
//
// Control packets (CNP, ACK, NACK) travel in a strict-priority class: they
// take the reverse path's latency and 64-byte serialization per hop, but
// never queue behind data.
//
// HCCS and PCIe links carry packets of the same size without framing, no
// congestion control and their own (small) jitter.
#pragma once

#include <random>
#include <unordered_map>
#include <vector>

#include "sim/core/index_pool.h"
#include "sim/network/jitter.h"
#include "sim/network/network.h"
#include "sim/network/packet/egress_port.h"
#include "sim/network/packet/packet_metrics.h"
#include "sim/network/packet/qp_receiver.h"
#include "sim/network/packet/sender_qp.h"
#include "sim/network/roce_model.h"
#include "sim/network/routing.h"

namespace collsim {

class PacketNetwork final : public Network {
public:
  // Throws InputError if PFC is on and a switch's buffer cannot hold its headroom.
  PacketNetwork(EventEngine& engine, const Cluster& cluster, const RoceModel& model, std::uint64_t seed);

  void send(int src, int dst, Bytes bytes, std::uint64_t cookie) override;
  void flushTrace() override;
  NetworkMetrics metrics(Time runTime) const override;

  // Payload bytes of `qp`'s messages delivered so far (tests: fairness).
  struct QpView {
    int src, dst;
    Bytes delivered;
    double rate; // DCQCN's current rate, bytes/s
  };
  std::vector<QpView> queuePairs() const;
  // The deepest switch egress queue now, bytes (tests: where a queue sits).
  Bytes deepestSwitchQueue() const;

private:
  // An event kind: one member of the network, called with the event's
  // argument (a port, packet, control packet, QP or message index).
  template <void (PacketNetwork::*Handle)(std::uint32_t)>
  struct On final : EventHandler {
    explicit On(PacketNetwork* n) : net(n) {}
    void onEvent(std::uint64_t arg) override { (net->*Handle)(std::uint32_t(arg)); }
    PacketNetwork* net;
  };

  std::uint32_t connection(int src, int dst); // creates its QPs on first use
  void activate(std::uint32_t qp);
  // Sending on a port.
  void kick(std::uint32_t port);
  void wakeAt(std::uint32_t port, Time at);
  void onPortFree(std::uint32_t port);
  void startNext(std::uint32_t port);
  void transmit(std::uint32_t port, std::uint32_t packet);
  // A packet's way.
  void onArrive(std::uint32_t packet);
  void enqueue(std::uint32_t port, std::uint32_t packet, std::uint32_t ingress);
  void dequeued(EgressPort& out, const Packet& p);
  void receive(std::uint32_t packet);
  void complete(std::uint32_t message);
  void onLocalDelivery(std::uint32_t message);
  // Flow control: holding a link pauses it once the pause has travelled.
  void hold(std::uint32_t port);
  void release(std::uint32_t port);
  void holdFor(std::uint32_t egress, std::uint32_t ingress);
  void onPause(std::uint32_t port);
  void onResume(std::uint32_t port);
  // Control packets and timers.
  void sendControl(std::uint32_t qp, Control kind, std::uint32_t seq);
  void onControl(std::uint32_t control);
  void goBack(std::uint32_t qp, std::uint32_t seq);
  void armTimers(std::uint32_t qp);
  void armRetransmitTimer(std::uint32_t qp);
  void afterCut(std::uint32_t qp);
  void rateChanged(std::uint32_t qp);
  void onDecreaseTimer(std::uint32_t qp);
  void onIncreaseTimer(std::uint32_t qp);
  void onRetransmitTimer(std::uint32_t qp);
  // Counters for the trace: a switch queue's depth, a QP's rate.
  void traceQueue(std::uint32_t port);
  void traceRate(std::uint32_t qp);

  EventEngine& engine_;
  const Cluster& cluster_;
  RoceModel model_;
  ReceiverSettings receiving_, receivingOther_; // RoCE QPs, and HCCS/PCIe paths
  Routing routing_;
  std::vector<EgressPort> ports_;
  std::vector<SenderQp> senders_;
  std::vector<QpReceiver> receivers_; // one per QP, at its destination
  std::unordered_map<std::uint64_t, std::uint32_t> connections_; // (src, dst) -> its first QP
  IndexPool<Packet> packets_;
  IndexPool<Message> messages_;
  IndexPool<ControlPacket> controls_;
  JitterSource roceJitter_, hccsJitter_;
  std::mt19937_64 ecnRng_; // fixed seed: marking does not depend on the scenario's seed
  PacketMetrics metrics_;

  On<&PacketNetwork::onPortFree> portFree_{this};
  On<&PacketNetwork::onArrive> arrive_{this};
  On<&PacketNetwork::onControl> control_{this};
  On<&PacketNetwork::onPause> pause_{this};
  On<&PacketNetwork::onResume> resume_{this};
  On<&PacketNetwork::onDecreaseTimer> decreaseTimer_{this};
  On<&PacketNetwork::onIncreaseTimer> increaseTimer_{this};
  On<&PacketNetwork::onRetransmitTimer> retransmitTimer_{this};
  On<&PacketNetwork::onLocalDelivery> localDelivery_{this};
};

} // namespace collsim
