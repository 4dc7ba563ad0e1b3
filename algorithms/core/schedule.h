// The schedule: the one form in which every collective algorithm is written.
//
// A schedule tells each rank a sequence of steps. A step is a set of
// operations posted together: send a byte range of the rank's buffer to a
// peer, receive a byte range from a peer (overwrite), receive and reduce it
// into the buffer, or copy a range locally. A step ends when all its
// operations have completed; the next step starts after that. Sends and
// receives between one ordered pair of ranks match in the order they are
// posted (MPI's non-overtaking rule), so no explicit tags are needed: an
// executor derives them.
//
// A send takes its bytes when it is posted, so a step may send a range and
// receive into it at once (recursive doubling does). Two writes of the same
// bytes in one step are allowed only if both are reductions.
//
// A Compute operation keeps the rank's device busy for a time and moves no
// data: training-step schedules put the model's forward and backward passes
// on a stream of their own, next to the collectives of the gradient buckets
// (ASTRA-sim's and Chakra's compute nodes). Collective algorithms never
// contain it.
//
// A schedule may consist of several streams (like NCCL channels or HCCL
// streams): each is its own sequence of steps on every rank, progressing
// independently of the others, with its own send/receive matching. Streams
// touch disjoint bytes, or order themselves with Wait operations (HCCL's
// stream events): a Wait completes once another stream of the same rank has
// completed a number of steps. Most schedules are one stream.
//
// Schedules are generated on demand (`appendOps(rank, step)`) instead of being
// stored: a 4096-rank ring AllReduce has 33 million operations, and the
// simulator, the checker and the real transports each walk them once.
// `materialize` turns any schedule into plain data for tests and dumps.
//
// This folder never includes sim/: the simulator executes schedules, it does
// not build them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace collsim {

enum class Collective : std::uint8_t { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AllToAll };

const char* collectiveName(Collective c);   // "allreduce", ...
bool parseCollective(const std::string& name, Collective& out);
std::vector<std::string> collectiveNames();

// nccl-tests' bus bandwidth factor: busbw = algbw * factor.
double busBandwidthFactor(Collective c, int ranks);

enum class OpKind : std::uint8_t { Send, Recv, RecvReduce, Copy, Wait, Compute };

// How a send may use a switch that reduces and multicasts (NVLink SHARP,
// InfiniBand SHARP). The meaning of the schedule does not change: the
// checker and the real transports see plain sends. A simulated network with
// such a switch between the ranks moves less data:
// - Reduce: this send is one of `group` sends of equal size to the same
//   rank, which receive-reduces them all; the switch adds them up and
//   passes one message on;
// - Multicast: this send is one of `group` sends of the same bytes in one
//   step to different ranks; the rank uploads them once, the switch copies.
enum class InNetwork : std::uint8_t { None, Reduce, Multicast };

struct Op {
  OpKind kind;
  int peer;                   // the other rank; unused by Copy; Wait: the stream
  std::uint64_t offset;       // bytes into the rank's buffer (Copy: destination;
                              // Wait: the steps that stream must have completed)
  std::uint64_t bytes;
  std::uint64_t srcOffset = 0; // Copy only: where the bytes come from
  std::int64_t durationPs = 0; // Compute only: how long the device is busy
  InNetwork net = InNetwork::None; // Send only
  std::uint16_t group = 0;         // Send with net: how many sends the switch combines
  bool operator==(const Op&) const = default;
};

// Whether an operation moves data between ranks (its peer is a rank).
inline bool communicates(const Op& op) {
  return op.kind == OpKind::Send || op.kind == OpKind::Recv || op.kind == OpKind::RecvReduce;
}

// What a schedule computes: the collective, how many ranks, and the buffer
// of count elements of elemSize bytes on every rank. Collectives work in
// place on it, except AllToAll, whose buffer holds the input (count
// elements, block j for rank j) followed by the output (block j from rank j),
// with blocks of count / ranks elements (the remainder is not exchanged,
// as in nccl-tests).
struct CollectiveSpec {
  Collective op = Collective::AllReduce;
  int ranks = 1;
  std::uint64_t count = 0;
  std::uint32_t elemSize = 4;
  int root = 0; // Broadcast and Reduce
  // Ranks per server, consecutive (0 = all on one server); hierarchical
  // algorithms need it.
  int devicesPerServer = 0;
  // The bytes a collective library moves per pipeline step (its chunk; 0:
  // no library). Algorithms that pipeline the buffer themselves (trees,
  // nvls, hierpipe) cut it into pieces of about this size.
  std::uint64_t chunkBytes = 0;
  std::uint64_t bytes() const { return count * elemSize; }
  std::uint64_t bufferElems() const { return op == Collective::AllToAll ? 2 * count : count; }
  std::uint64_t bufferBytes() const { return bufferElems() * elemSize; }
};

// Where a step sits in its schedule's structure, for traces: its phase (a
// part of a sequence: reduce-scatter then all-gather, or a hierarchical
// algorithm's levels) out of `phases`, and its chunk (a loop of a chunked
// run, a slice of a pipeline); -1 where the schedule has no such structure.
struct StepPlace {
  int phase = -1, phases = 0;
  int chunk = -1;
};

// Element range [first, first + count).
struct Block {
  std::uint64_t first;
  std::uint64_t count;
};

// Block i of `count` elements cut into `parts` nearly equal blocks; the first
// count % parts blocks hold one element more. ReduceScatter leaves block r on
// rank r and AllGather starts from it.
Block blockOf(std::uint64_t count, int parts, int i);

class Schedule {
public:
  virtual ~Schedule() = default;
  virtual int ranks() const = 0;
  virtual int stepCount(int rank) const = 0;
  // Appends the operations of `step` of `rank` to `out`.
  virtual void appendOps(int rank, int step, std::vector<Op>& out) const = 0;

  // Independent streams; a single-stream schedule is its own stream 0.
  virtual int streamCount() const { return 1; }
  virtual const Schedule& stream(int) const { return *this; }

  // Where `step` of `rank` sits (wrappers pass it through); only traces ask.
  virtual StepPlace place(int /*rank*/, int /*step*/) const { return {}; }
};

using SchedulePtr = std::unique_ptr<const Schedule>;

// Plain-data copy: steps[rank][step] = operations.
using MaterializedSchedule = std::vector<std::vector<std::vector<Op>>>;
MaterializedSchedule materialize(const Schedule& s);

// A schedule held as data (tests build broken ones by hand).
class ExplicitSchedule final : public Schedule {
public:
  explicit ExplicitSchedule(MaterializedSchedule steps) : steps_(std::move(steps)) {}
  int ranks() const override { return int(steps_.size()); }
  int stepCount(int rank) const override { return int(steps_[rank].size()); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override;

private:
  MaterializedSchedule steps_;
};

} // namespace collsim
