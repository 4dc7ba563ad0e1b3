// Replays a schedule on the simulated network.
//
// Each rank walks the steps of each stream in order (streams progress
// independently: each is a "lane"). A step posts all its operations at
// once (a step that communicates first pays a step latency: the device's
// step overhead, or the collective library's per-hop latency); a
// send becomes a network message from the rank's device to the peer's; a
// receive matches the peer's sends to this rank in posting order. A send completes when its last byte has
// arrived (an RDMA write with remote completion); a receive completes when
// its message has arrived and, for receive-reduce, the device has reduced
// it (one reduction at a time per device, at its reduce bandwidth); a local
// copy completes at once; a computation after its duration; a Wait
// completes when the other stream of the rank has completed enough steps.
// When all operations of a step have completed, the next step begins.
//
// Sends marked for in-network reduction or multicast (schedule.h,
// InNetwork) between devices of a server whose switch reduces (NVLS), or of
// two servers whose fabric switch reduces (SHARP), go through that switch
// (schedule_executor_in_network.cpp): contributions wait there
// until the group is complete and travel on as one message; a multicast is
// uploaded once and copied to each destination. Elsewhere they are plain sends.
//
// Under a symmetry (rank_symmetry.h) only the representative ranks run.
// A send to another rank goes to that rank's representative, as if from
// the sender's image under the element that moves the receiver there; the
// network (folded) carries it over the representative channels. Counts of
// messages and bytes, and every rank's finish, are the whole run's.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/core/index_pool.h"
#include "sim/network/network.h"
#include "sim/network/rank_symmetry.h"
#include "sim/network/routing.h"

namespace collsim {

// One message as it completed: who sent how much to whom, and its number
// among the messages of that pair.
struct MessageRecord {
  int stream, src, dst;
  std::uint64_t seq;
  Bytes bytes;
  auto operator<=>(const MessageRecord&) const = default;
};

// What the collective library adds to the network's work (chosen per run by
// sim/run/simulate.cpp from the library model; the default is the device's step overhead alone).
// - launch: before any rank starts (kernel launch, the library's base latency);
// - intraStep/interStep: a latency before each step that communicates, by
//   whether one of its peers is on another server: the device's own work per
//   step, during which the rank does nothing else (HCCL's task per step);
// - intraHop/interHop: a latency on each message, by whether it crosses
//   servers: the time its data takes to be seen by its receiver (NCCL's
//   per-hop latency: flags, fences, polling, a proxy and the NIC), during
//   which its sender goes on. Along a ring only the hops on the critical
//   path add up, so a two-server ring pays the network's latency a few
//   times, not at every step (as NCCL's model counts it);
// - dataShare: the part of each line on the wire that is data (LL carries
//   4 B of data in an 8 B line): a send of n bytes puts n / dataShare on the wire;
// - laneBandwidth: the most one lane (one channel of one rank: one thread
//   block copying through the protocol's lines) moves per second; a message
//   is not delivered before its lane could have pushed it out. 0 = no limit.
// - slots: how many of a lane's sends to one peer its peer may hold (NCCL's
//   NCCL_STEPS buffer slots per channel and peer: a rank writes into its
//   peer's free slot and moves on). A slot is given back when the receiver
//   has taken the data (its receive matched it), by a word back over the
//   same fabric (NCCL's head counter over NVLink, the posted receive over
//   the network): a window of slots spans a round trip. A send finding no
//   free slot waits for one, and holds its step. 0: every send holds its
//   step until delivered (an RDMA write with remote completion, HCCL's
//   notify per step).
struct StepCosts {
  Time launch = 0;
  Time intraStep = 0, interStep = 0;
  double dataShare = 1;
  Bandwidth laneBandwidth = 0;
  int slots = 0;
  Time intraHop = 0, interHop = 0;
  static StepCosts ofDevice(const DeviceModel& d) { return {0, d.stepOverhead, d.stepOverhead, 1, 0, 0, 0, 0}; }
};

struct ExecutionResult {
  Time finish = 0;                 // when the last rank finished its last step
  std::vector<Time> rankFinish;    // per rank
  std::uint64_t events = 0;        // engine events processed
  std::uint64_t messages = 0;      // sends posted
  Bytes bytesSent = 0;             // sum over sends
  Bytes bytesReceived = 0;         // sum over receives
  std::vector<MessageRecord> log;  // every message, if recording was asked for
  NetworkMetrics network;          // links, queues, congestion control, message latency
};

class ScheduleExecutor final : public EventHandler, public DeliveryListener {
public:
  // `symmetry`: run its representatives alone (the network folded to match);
  // the schedule need number only their steps.
  ScheduleExecutor(EventEngine& engine, Network& network, const Cluster& cluster,
                   const Schedule& schedule, TraceSink* trace = nullptr, const RankSymmetry* symmetry = nullptr);

  // Runs the schedule to completion. Throws std::runtime_error if some rank
  // never finishes (a deadlock the symbolic checker would have caught).
  ExecutionResult run();
  // Keep a MessageRecord of every message (tests; costs memory at scale).
  void recordMessages(bool on) { record_ = on; }
  // Replaces the device's step overhead (call before run()).
  void setCosts(const StepCosts& costs) { costs_ = costs; }
  // While any stream of a rank communicates, the rank's computations run at
  // (1 - share) of their speed: the collective's kernels hold that share of
  // the device's compute units (collectiveComputeShare in library_model.h).
  // 0 (the default): computation and communication do not meet. Set
  // before the run.
  void setComputeShareTaken(double share) { computeShareTaken_ = share; }

  void onEvent(std::uint64_t arg) override;
  void onDelivered(std::uint64_t cookie) override;

private:
  // One stream of one rank.
  struct Lane {
    const Schedule* schedule = nullptr;
    int rank = 0;
    int stream = 0;
    int step = 0;
    int steps = 0;
    int outstanding = 0;
    bool posting = false;
    bool loaded = false; // `ops` holds the current step, not yet posted
    Time stepStart = 0;
    Time pushedAt = 0; // when the lane has pushed out what it sent so far (laneBandwidth)
    int undelivered = 0; // its sends to a reducing switch on their way (slots)
    Bytes stepBytesSent = 0;
    bool communicating = false; // its current step sends or receives
    // Its step's computation (the longest of its Compute ops, standing for
    // `computeOps` of them): `computeLeft` picoseconds of full-speed work
    // were left at `computeSince`, since run at `computeRate`; `computeTurn`
    // tells its completion event from ones it has replaced.
    int computeOps = 0;
    Time computeLeft = 0, computeSince = 0;
    double computeRate = 1;
    std::uint32_t computeTurn = 0;
    std::vector<Op> ops;
    // The pairs it sends on (indices into pairs_), sorted by peer: a lane
    // talks to a few peers, so a search here stays in memory the lane
    // already uses (a hash over all pairs missed the cache on every
    // message at scale).
    std::vector<std::pair<int, std::uint32_t>> sendsTo;
  };
  // Sends and receives between one ordered pair in one stream, matched by
  // sequence number: the sender's lane and the receiver as the sender sees
  // it (under a symmetry, maybe a rank that does not run).
  struct PairState {
    std::uint32_t senderLane = 0;
    int receiver = 0;
    std::uint32_t sendsPosted = 0;
    std::uint32_t reduceSends = 0; // in-network reduce sends: the round of the next one
    std::uint32_t recvsPosted = 0;
    std::vector<std::pair<std::uint32_t, bool>> arrived; // delivered (seq, direct), no receive yet
    std::vector<std::pair<std::uint32_t, bool>> waiting; // receives posted (seq, reduce), no data yet
    int slotsTaken = 0; // direct sends whose slot has not come back
    // Direct sends waiting for a slot (InFlight cookies), oldest at
    // heldFirst: a vector, which costs nothing until used (a deque
    // allocates on construction, and there is a PairState per pair).
    std::vector<std::uint32_t> held;
    std::uint32_t heldFirst = 0;
  };
  // Which leg of its way a message is on (in-network sends take two; a
  // slot given back goes as a delay, not on the network).
  enum class Leg : std::uint8_t { Direct, ReduceUp, ReduceDown, MulticastUp, MulticastCopy, SlotBack };
  struct InFlight {
    std::uint32_t srcLane;
    std::uint32_t dstLane; // the receiver's lane (under a symmetry, its representative's)
    std::uint32_t seq;
    std::uint32_t relay; // ReduceUp: its round; ReduceDown: its merge; MulticastUp: its multicast
    Bytes bytes;
    Time pushedAt; // not delivered before this
    std::uint16_t group = 0; // ReduceUp: contributions to wait for
    Leg leg = Leg::Direct;
    bool released = false; // the send let its step go on at once (a free slot)
    std::uint32_t pair = 0;  // its sender and receiver's PairState (sends, slots)
    int to = 0;              // its receiver as its sender sees it
    Time postedAt = 0;       // when its step posted it (traces)
  };
  // Contributions waiting at a switch for the rest of their group.
  struct Merge {
    int switchNode = 0, expected = 0, arrived = 0;
    std::vector<std::uint32_t> parts; // their InFlight entries, kept until delivered
  };
  // One upload, then a copy to each destination.
  struct Multicast {
    int switchNode = 0;
    Bytes wire = 0;
    std::vector<std::uint32_t> copies; // InFlight entries, one per destination
  };

  // The pair of a sending lane and its receiver (an index into pairs_), made on first use.
  std::uint32_t pairOf(std::uint32_t senderLane, int receiver);
  // The lane of `rank`'s stream (a representative, under a symmetry).
  std::uint32_t laneOf(int stream, int rank) const {
    return std::uint32_t(stream) * std::uint32_t(laneRanks_) +
           std::uint32_t(symmetry_ ? symmetry_->representativeIndex(rank) : rank);
  }
  int representativeOf(int rank) const { return symmetry_ ? symmetry_->representative(rank) : rank; }
  void runSteps(std::uint32_t lane);
  void postStep(std::uint32_t lane);
  void endStep(std::uint32_t lane);
  void complete(std::uint32_t lane);
  void scheduleCompute(std::uint32_t lane);
  void computeDone(std::uint32_t lane, std::uint32_t turn);
  void communicatingChanged(std::uint32_t lane, bool communicating);
  void receiveArrived(std::uint32_t lane, Bytes bytes, bool reduce);
  void deliver(std::uint32_t cookie);
  void receiverGot(std::uint32_t cookie);
  void sendArrived(const InFlight& message); // the send's own completion
  void postDirect(std::uint32_t cookie);      // a direct send onto the network
  void giveSlotBack(std::uint32_t pair);
  void slotCameBack(std::uint32_t cookie);
  Time propagation(int srcNode, int dstNode); // the links' latencies along the route
  Time stepLatency(const Lane& lane) const;
  Time hopLatency(const InFlight& message) const;
  Bytes wireBytes(Bytes data) const; // with the protocol's flags
  // In-network sends (schedule_executor_in_network.cpp).
  int reducingSwitch(int rank, const Op& op) const; // -1: a plain send
  int switchBetween(int a, int b) const;             // the reducing switch ranks a and b meet at, or -1
  Bytes throughSwitch(Bytes wire, int sw) const;
  void sendThroughSwitch(std::uint32_t lane, const Op& op, int switchNode, InFlight message, Bytes wire,
                         std::vector<std::pair<const Op*, std::uint32_t>>& stepMulticasts);
  void relay(std::uint32_t cookie);

  EventEngine& engine_;
  Network& network_;
  const Cluster& cluster_;
  TraceSink* trace_;
  bool record_ = false;
  StepCosts costs_;
  int ranks_;
  const RankSymmetry* symmetry_;
  int laneRanks_; // the ranks that run: all, or the symmetry's representatives
  std::vector<int> rankServer_;
  std::vector<Lane> lanes_;         // laneOf(stream, rank)
  // Per lane: lanes waiting for it to complete a number of steps.
  std::vector<std::vector<std::pair<std::uint32_t, int>>> waiters_;
  std::vector<Time> reduceFreeAt_;  // per rank: its device reduces one thing at a time
  double computeShareTaken_ = 0;
  std::vector<int> communicatingLanes_; // per rank, when computeShareTaken_ > 0
  // Per rank, when computeShareTaken_ > 0: its lanes with a computation in
  // progress, by lane index (a step has thousands of lanes, a few compute).
  std::vector<std::vector<std::uint32_t>> computingLanes_;
  std::deque<PairState> pairs_; // a deque: references survive new pairs
  IndexPool<InFlight> inFlight_; // sends on the network, by cookie
  std::vector<int> reducingSwitchOfServer_; // node index, -1 none
  int reducingFabricSwitch_ = -1;           // between servers (SHARP), -1 none
  IndexPool<Merge> merges_;
  std::unordered_map<std::uint64_t, std::uint32_t> openMerges_; // (destination lane, round) -> merge
  IndexPool<Multicast> multicasts_;
  std::optional<Routing> routing_; // for the latency back to a sender (slots), built when first needed
  std::unordered_map<std::uint64_t, Time> propagation_;
  ExecutionResult result_;
};

} // namespace collsim
