// How much work a run will be, known before it starts.
//
// A user who types a 2^40-rank cluster, a 1-byte segment of 1 GiB or a
// latency of 100 days deserves an answer in a second ("about 2.1e12
// events, ~60 h"), not a machine that swaps for an hour or a clock that
// overflows. The estimate walks a sample of ranks' schedules (every rank of
// a small run; six ranks of a large one, scaled up), counts messages and
// the segments or packets each puts on each hop, and bounds:
//   events     the fast model's, counted as it spends them: a segment's
//                arrival at each hop, a wake-up for each segment that waits
//                for a link, a reduce's or a computation's end, a step's
//                latency; at packet level ~2 per packet and hop (arrival
//                and departure) and a few per message;
//   memory     ~ a base + per link, per rank and stream, per message in
//                flight and per cached route (coefficients measured with
//                scripts/bench.sh, see the .cpp);
//   sim. time  ~ the slowest sampled rank's chain of steps at the slowest
//                link and the largest latency (no contention: a lower
//                bound, so a refusal is never wrong about overflow);
//   wall time  ~ a cost per event, per message and per pair of ranks that
//                talk (its route), fitted to runs on this machine (.cpp).
// It is an estimate: within a small factor of the real run (tests hold it
// to 4x on the shipped clusters), which is what a limit needs.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "algorithms/core/registry.h"
#include "sim/network/network.h"
#include "topologies/cluster.h"

namespace collsim {

struct WorkEstimate {
  double events = 0;
  double memoryBytes = 0;     // peak of one run
  double simulatedSeconds = 0;
  double lanes = 0; // ranks x streams of the schedule: a lane each in the executor
  // The slowest link the run crosses, as a message names it ("HCCS at 1 B/s"): what
  // to look at when the simulated time passes the clock.
  std::string slowestLink;
  // Seconds of this machine's time, the runs one after another (see the
  // .cpp); 0 where only events were counted: they count at 100 ns.
  double wallSeconds = 0;
  // A sum of runs that stopped once it passed a limit (stopSumming): the
  // work is at least this much, which is all a refusal needs to know.
  bool partial = false;
  // Runs summed (0: one, as estimated alone); the command may run several
  // at once (inParallel).
  double runs = 0;
  // Of wallSeconds, what runs on one thread whatever the runs (reading a
  // study's points); and memory held beside the runs for the whole command
  // (the points read, their results).
  double serialSeconds = 0;
  double heldBytes = 0;
  // Runs one after another: events and seconds add up, memory is the largest.
  void addSequential(const WorkEstimate& o);
  double seconds() const { return wallSeconds > 0 ? wallSeconds : events * 100e-9; }
  double runCount() const { return std::max(1.0, runs); }
};

// The command as a whole when it runs `threads` of the runs at once (CPU
// bound: this machine's cores): the parallel part of the time divided
// among them, the memory of one run times those in flight plus what is
// held beside them.
WorkEstimate inParallel(WorkEstimate e, int threads);

struct WorkLimits {
  double maxEvents = 1e9;                       // ~2 min at 10 M events/s, more on large state
  double maxMemoryBytes = double(8ULL << 30);   // the command's, all runs in flight
  int parallelRuns = 1;                         // runs in flight at once (memory adds up)
};

// Whether `e` passes a limit (enforceLimits would refuse it).
bool pastLimits(const WorkEstimate& e, const WorkLimits& limits);
// For a loop that adds up runs: true (and `total` marked partial) once the
// sum passes `stop`'s limits, so that a refusal costs one run's estimate,
// not the study's. No limits (nullptr, as for --estimate): never.
inline bool stopSumming(WorkEstimate& total, const WorkLimits* stop) {
  if (stop && !total.partial && pastLimits(total, *stop)) total.partial = true;
  return total.partial;
}

// The 64-bit picosecond clock holds about 106 days; a run estimated past a
// tenth of that is refused (the estimate has no contention).
inline constexpr double kMaxSimulatedSeconds = 9.2e5;

struct CollectiveWork {
  Collective op;
  const AlgorithmEntry* algorithm;
  Bytes bytes;
  std::uint32_t elemSize = 4;
  int root = 0;
  Bytes segment = Bytes(1) << 20;
  Fidelity fidelity = Fidelity::Fast;
  Bytes loopBytes = 0; // HCCL_BUFFSIZE loops: one loop and the tail are simulated
  std::uint32_t mtu = 4096; // packet level: the RoCE MTU
  int queuePairs = 1;       // fast model: a RoCE message's parts, one per QP
  // simulation.symmetry: alike servers may run once for all, as the run
  // finds them (collective_symmetry.h) from the algorithm asked for (a
  // library's channels keep its name; empty: algorithm's own).
  bool symmetry = false;
  std::string asked = {};
  // A library's costs add events to each send (sim/executor): its delivery
  // after the hop latency, its slot's return, its step's latency.
  double eventsPerSend = 0;
  // ... and to each step that sends, at least its step's and a hop's
  // latency (the chain of the simulated time).
  double stepLatencySeconds = 0;
  Bandwidth laneBandwidth = 0; // a channel's data rate under its protocol (0: the links')
};

// Estimates collectives on one cluster. What depends on the cluster alone
// (hops from rank 0 to every node, the slowest link) is worked out once:
// a study estimates 88 algorithms at every size on one cluster of 262,144
// devices, and the hops take a walk over all of its links.
class CollectiveEstimator {
public:
  explicit CollectiveEstimator(const Cluster& cluster);
  WorkEstimate operator()(const CollectiveWork& work) const;

private:
  WorkEstimate once(const CollectiveWork& w, Bytes bytes) const;

  const Cluster& c_;
  std::vector<double> latencyFromRankZero_; // per node: the links' latencies on the way, in seconds
  std::vector<int> hopsFromRankZero_;     // per node, links as undirected edges
  const ClusterLink* slowestLink_ = nullptr;
  Time longestLatency_ = 0;
};

// One collective: CollectiveEstimator(cluster)(work).
WorkEstimate estimateCollective(const Cluster& cluster, const CollectiveWork& work);

// An estimate costs about a schedule build, O(ranks): 88 algorithms at 28
// sizes on 262,144 ranks would take 35 s to estimate. Of an algorithm's
// `sizes` sizes, how many to estimate (spread evenly, the smallest and the
// largest among them) when `algorithms` algorithms run on `ranks` ranks:
// all of them until about 2^24 rank-estimates in all, at least two.
std::size_t sizesToEstimate(std::size_t sizes, int ranks, std::size_t algorithms);
// The estimate at `bytes` between two estimated sizes, interpolated on
// log-log axes (events and seconds grow as a power of the size between
// neighbours on a doubling grid), linearly where one is zero.
WorkEstimate interpolateEstimate(Bytes bytes, Bytes lowBytes, const WorkEstimate& low, Bytes highBytes,
                                 const WorkEstimate& high);

// Throws InputError when `total` (the whole scenario or study, run as
// inParallel(total, limits.parallelRuns)) passes a limit: "<what>: about
// 2.1e12 events (~60 h), ...".
void enforceLimits(const WorkEstimate& total, const WorkLimits& limits, const std::string& what);
// Only the clock: for one run of a study, whose events count towards the whole.
void enforceClock(const WorkEstimate& run, const std::string& what);

// "2.1e12", "~60 h": for messages and progress lines.
std::string describeEstimate(const WorkEstimate& e);

} // namespace collsim
