#include "sim/run/work_estimate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_set>
#include <vector>

#include "sim/core/input_error.h"
#include "sim/core/parallel.h"
#include "sim/run/collective_symmetry.h"
#include "sim/run/simulate.h"

namespace collsim {
namespace {

// A rate as a person reads it, however small: "1 B/s", "12.5 kB/s", "50 GB/s".
std::string readableRate(double bytesPerSecond) {
  const char* units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
  int u = 0;
  while (u < 4 && bytesPerSecond >= 1000) bytesPerSecond /= 1000, ++u;
  char b[48];
  std::snprintf(b, sizeof b, "%.4g %s", bytesPerSecond, units[u]);
  return b;
}

// The packet model, measured on the shipped clusters (perf --estimate
// against the events a run reports): about two events per packet and hop,
// and about one and a half more per message (post, delivery, step
// completion). The fast model's events are counted instead (once, below).
constexpr double kEventsPerPacketHop = 2.0;
constexpr double kEventsPerPacketMessage = 1.5;
// Memory: the process and its libraries; then per link direction, per rank
// stream, per message in flight (network and executor state) and per cached
// route (a hash entry and its hops).
constexpr double kBaseBytes = 8.0 * (1 << 20);
constexpr double kBytesPerLink = 512;
constexpr double kBytesPerRankStream = 512;
constexpr double kBytesPerMessageInFlight = 256;
constexpr double kBytesPerRoute = 96;
// The symbolic checker, which runs first on up to kMaxCheckedRanks ranks
// (its memory is freed before the simulation starts): a queue per pair
// that talks, a deque's first block and map (a 256-rank mesh: 63 MB).
constexpr double kBytesPerCheckedPair = 640;
constexpr double kBytesPerRouteHop = 4;
// Walking a large schedule is itself work: beyond about this many operations
// in all (shared by the sampled ranks' streams, at least 1,000 each; up to
// twice as many to finish an even grid of steps) the rest of each stream's
// steps are extrapolated from those walked, spread over all of them
// (bitReversed).
constexpr std::size_t kWalkBudget = 250'000;
constexpr std::size_t kMinWalkPerStream = 1'000;

// i with its low `bits` bits in reverse order. Counting i up and visiting
// step bitReversed(i) visits the steps in an order whose every prefix is
// spread evenly over them (0, 1/2, 1/4, 3/4, ...): a walk that stops early
// has seen every phase of a hierarchical schedule, not only the first.
std::uint64_t bitReversed(std::uint64_t i, int bits) {
  std::uint64_t r = 0;
  for (int b = 0; b < bits; ++b, i >>= 1) r = (r << 1) | (i & 1);
  return r;
}

// Hops from rank 0's device to every node (links as undirected edges).
// The hops from rank 0's device to every node, and the latency of the
// links along the way (`seconds`, per node: a sum of latencies of days each
// would pass the picosecond clock).
std::vector<int> hopsFromRankZero(const Cluster& c, std::vector<double>& seconds) {
  // Each node's neighbours in one array (a node's run starts at first[node]).
  const std::size_t n = c.nodes.size();
  std::vector<std::size_t> first(n + 1, 0);
  for (const auto& l : c.links) ++first[std::size_t(l.a) + 1], ++first[std::size_t(l.b) + 1];
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<std::pair<int, double>> adjacent(first[n]); // the other end, the link's latency in seconds
  std::vector<std::size_t> filled(first.begin(), first.end() - 1);
  for (const auto& l : c.links) {
    adjacent[filled[std::size_t(l.a)]++] = {l.b, toSeconds(l.params.latency)};
    adjacent[filled[std::size_t(l.b)]++] = {l.a, toSeconds(l.params.latency)};
  }
  std::vector<int> dist(n, -1), todo;
  seconds.assign(n, 0);
  int start = c.rankNode.empty() ? 0 : c.rankNode[0];
  dist[std::size_t(start)] = 0;
  todo.push_back(start);
  for (std::size_t next = 0; next < todo.size(); ++next) {
    const std::size_t node = std::size_t(todo[next]);
    for (std::size_t e = first[node]; e < first[node + 1]; ++e)
      if (auto [m, t] = adjacent[e]; dist[std::size_t(m)] < 0) {
        dist[std::size_t(m)] = dist[node] + 1, seconds[std::size_t(m)] = seconds[node] + t;
        todo.push_back(m);
      }
  }
  return dist;
}

struct RankWalk {
  double messages = 0, unitHops = 0, routeHops = 0, peers = 0;
  double fastEvents = 0; // the fast model's events, as once() counts them
  double chainSeconds = 0; // the longest stream's chain of steps
  double maxInFlight = 0;  // sends posted at once
};

std::string duration(double seconds); // "3 h", "11 days" (below)

// This machine's time for a collective run. The fast model's cost is not
// its events' alone: a segment that follows another on its way costs
// little, a message costs its executor's step (taking its ops, posting it,
// delivering it), and each pair of ranks that talk costs its route, found
// and cached on first use (a mesh's ranks^2 pairs). Fitted (least squares
// of the log ratio) to twelve runs on this 2-core machine: rings of 64 to
// 4,096 ranks, meshes of 128 to 1,024, rhd on 2,048, hierarchies and a
// flat ring on 512 x 8 and 64 x 8 servers (64 MiB to 16 GiB); each is
// within 0.61-1.56x (scripts/bench_estimate.sh holds the benchmark's to
// 2x). A packet-level event is a packet's arrival or departure at a port,
// ~100 ns each.
//
// And each run sets up its lanes (a rank's stream each: its executor
// state, its schedule's parts) whatever it sends: ~2 us a lane, which is
// most of a small run (a sweep point's 8 lanes: 16 us of its ~50; a
// comparison's NCCL runs of 16 ranks x 16 channels, 0.5 ms each).
// A library's events on a send (its delivery after the hop latency, its
// slot's return, its step's latency: CollectiveWork::eventsPerSend; NCCL's
// rings on one A100 server and on 32 H100 servers run 4.8-5.3 events a
// message, 2 of them the links') each look up the route's latency and the
// pair's slots besides the engine's work: ~40 ns more than a link's event
// (NCCL rings of 64 MiB on 2,048 and 16,384 H100s, one protocol each: 0.23
// and 1.46 s where the link events alone said 0.12 and 0.89).
constexpr double kPerLibraryEvent = 40e-9;

double secondsOf(Fidelity fidelity, double events, double messages, double routes, double lanes) {
  constexpr double kPerEvent = 19e-9, kPerMessage = 134e-9, kPerRoute = 3.8e-6, kPerPacketEvent = 100e-9;
  constexpr double kPerLane = 2e-6;
  const double eventSeconds = events * (fidelity == Fidelity::Packet ? kPerPacketEvent : kPerEvent);
  return eventSeconds + messages * kPerMessage + routes * kPerRoute + lanes * kPerLane;
}

} // namespace

CollectiveEstimator::CollectiveEstimator(const Cluster& cluster)
    : c_(cluster), hopsFromRankZero_(hopsFromRankZero(cluster, latencyFromRankZero_)) {
  for (const auto& l : c_.links) {
    if (!slowestLink_ || l.params.bandwidth < slowestLink_->params.bandwidth) slowestLink_ = &l;
    longestLatency_ = std::max(longestLatency_, l.params.latency);
  }
}

WorkEstimate CollectiveEstimator::once(const CollectiveWork& w, Bytes bytes) const {
  const Cluster& c = c_;
  const int p = c.ranks();
  CollectiveSpec spec = layoutOf(c, w.op);
  spec.count = bytes / w.elemSize;
  spec.elemSize = w.elemSize;
  spec.root = w.root;
  SchedulePtr schedule = buildSchedule(*w.algorithm, spec);
  // The ranks that run: all, or one unit of alike servers for all.
  int ran = p;
  if (w.symmetry && collectiveFoldRuledOut(c, true, w.fidelity, false).empty())
    ran = findCollectiveSymmetry(c, *schedule, w.op, w.asked.empty() ? w.algorithm->name : w.asked, w.elemSize)
              .simulatedRanks(p);

  // On a cluster that looks the same from every rank, src to dst is as far
  // as rank 0 to rank dst - src: in hops, and in the links' latencies.
  auto away = [&](int src, int dst) { return std::size_t(c.rankNode[std::size_t(((dst - src) % p + p) % p)]); };
  auto hops = [&](int src, int dst) { return std::max(1, hopsFromRankZero_[away(src, dst)]); };
  const Bandwidth slowest = slowestLink_ ? slowestLink_->params.bandwidth : 1;
  const Time latency = longestLatency_;
  const ClusterLink* slowestLink = slowestLink_;
  const double unit = double(w.fidelity == Fidelity::Packet ? std::max<std::uint32_t>(w.mtu, 1) : std::max<Bytes>(w.segment, 1));
  // Segments or packets of one message. The fast model stripes a RoCE
  // message over its queue pairs in whole packets, a segment count each:
  // counted for every message, an upper bound.
  auto unitsOf = [&](Bytes bytes) {
    double units = std::max(1.0, std::ceil(double(bytes) / unit));
    if (w.fidelity != Fidelity::Fast || w.queuePairs <= 1) return units;
    double packets = std::max(1.0, std::ceil(double(bytes) / double(std::max<std::uint32_t>(w.mtu, 1))));
    return units + std::min(double(w.queuePairs), packets) - 1;
  };

  std::vector<int> sample;
  if (p <= 32) {
    for (int r = 0; r < p; ++r) sample.push_back(r);
  } else {
    sample = {0, 1, p / 3, p / 2, 2 * p / 3, p - 1};
    if (w.root > 1 && w.root < p) sample.push_back(w.root);
    std::sort(sample.begin(), sample.end());
    sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  }
  RankWalk total;
  std::vector<Op> ops;
  const std::size_t walkPerStream =
      std::max(kMinWalkPerStream, kWalkBudget / (sample.size() * std::size_t(std::max(1, schedule->streamCount()))));
  for (int r : sample) {
    RankWalk walk;
    std::unordered_set<int> peers; // distinct destinations: each is one cached route
    for (int s = 0; s < schedule->streamCount(); ++s) {
      const Schedule& stream = schedule->stream(s);
      const int steps = stream.stepCount(r);
      int bits = 0;
      while ((std::uint64_t(1) << bits) < std::uint64_t(steps)) ++bits;
      std::size_t walked = 0;
      int walkedSteps = 0;
      RankWalk part;
      for (std::uint64_t i = 0; i < (std::uint64_t(1) << bits); ++i) {
        // Stop only where the steps walked are an even grid (i a power of
        // two): each then stands for as many steps as every other.
        if ((i & (i - 1)) == 0 && walked >= walkPerStream) break;
        const std::uint64_t step = bitReversed(i, bits);
        if (step >= std::uint64_t(steps)) continue;
        ++walkedSteps;
        ops.clear();
        stream.appendOps(r, int(step), ops);
        walked += ops.size() + 1;
        double stepSeconds = toSeconds(c.device.stepOverhead), inFlight = 0;
        double stepLatency = 0; // the library's, on a step that sends
        const auto sends = std::count_if(ops.begin(), ops.end(), [](const Op& op) { return op.kind == OpKind::Send; });
        // The fast model's events (sim/network/link_network.cpp,
        // sim/executor/schedule_executor.cpp): a segment's arrival at each
        // hop; a wake-up of the first link for each segment that waits
        // behind another (all of them when the step sends several messages
        // at once); a reduce's end, a computation's end, and the latency
        // of a step that communicates.
        if (sends > 0 && c.device.stepOverhead > 0) part.fastEvents += 1;
        for (const Op& op : ops) {
          if (op.kind == OpKind::Send) {
            int h = hops(r, op.peer);
            const double units = unitsOf(op.bytes);
            part.messages += 1;
            part.unitHops += units * h;
            part.fastEvents += units * h + (sends > 1 ? units : units - 1) + w.eventsPerSend;
            part.routeHops += h;
            if (peers.size() < 4096) peers.insert(op.peer);
            inFlight += 1;
            const Bandwidth rate = w.laneBandwidth > 0 ? std::min(slowest, w.laneBandwidth) : slowest;
            const double links = latencyFromRankZero_[away(r, op.peer)];
            const double along = links > 0 ? links : h * toSeconds(latency);
            stepSeconds = std::max(stepSeconds, double(op.bytes) / double(rate) + along);
            stepLatency = w.stepLatencySeconds;
          } else if (op.kind == OpKind::Compute) {
            stepSeconds = std::max(stepSeconds, double(op.durationPs) * 1e-12);
            part.fastEvents += 1;
          } else if (op.kind == OpKind::RecvReduce && c.device.reduceBandwidth > 0) {
            part.fastEvents += 1;
          }
        }
        part.chainSeconds += stepSeconds + stepLatency;
        part.maxInFlight = std::max(part.maxInFlight, inFlight);
      }
      double scale = walkedSteps > 0 ? double(steps) / walkedSteps : 1.0; // extrapolate what was not walked
      walk.messages += part.messages * scale;
      walk.unitHops += part.unitHops * scale;
      walk.fastEvents += part.fastEvents * scale;
      walk.routeHops += part.routeHops * scale;
      walk.chainSeconds = std::max(walk.chainSeconds, part.chainSeconds * scale);
      walk.maxInFlight += part.maxInFlight;
    }
    total.peers += double(peers.size());
    total.messages += walk.messages;
    total.unitHops += walk.unitHops;
    total.fastEvents += walk.fastEvents;
    total.routeHops += walk.routeHops;
    total.chainSeconds = std::max(total.chainSeconds, walk.chainSeconds);
    total.maxInFlight = std::max(total.maxInFlight, walk.maxInFlight);
  }
  const double perRank = double(ran) / double(sample.size());
  double messages = total.messages * perRank;
  WorkEstimate e;
  e.events = w.fidelity == Fidelity::Packet
                 ? total.unitHops * perRank * kEventsPerPacketHop + messages * kEventsPerPacketMessage
                 : total.fastEvents * perRank;
  // Routes are cached per (source, destination).
  double routes = total.peers * perRank;
  double hopsPerRoute = total.messages > 0 ? total.routeHops / total.messages : 1;
  e.memoryBytes = kBaseBytes + 2.0 * double(c.links.size()) * kBytesPerLink +
                  double(ran) * schedule->streamCount() * kBytesPerRankStream +
                  double(ran) * total.maxInFlight * kBytesPerMessageInFlight +
                  routes * (kBytesPerRoute + kBytesPerRouteHop * hopsPerRoute);
  if (p <= kMaxCheckedRanks) e.memoryBytes = std::max(e.memoryBytes, kBaseBytes + routes * kBytesPerCheckedPair);
  e.simulatedSeconds = total.chainSeconds;
  if (slowestLink) {
    e.slowestLink = c.tierName(*slowestLink) + " at " + readableRate(double(slowestLink->params.bandwidth));
    if (latency >= Time(1'000'000'000'000)) e.slowestLink += ", the longest latency " + duration(toSeconds(latency));
  }
  e.lanes = double(ran) * schedule->streamCount();
  e.wallSeconds = secondsOf(w.fidelity, e.events, messages, routes, e.lanes) +
                  messages * w.eventsPerSend * kPerLibraryEvent;
  return e;
}

namespace {

std::string engineering(double v) {
  char s[32];
  if (v < 1e4) std::snprintf(s, sizeof s, "%.0f", v);
  else std::snprintf(s, sizeof s, "%.1e", v);
  return s;
}

std::string duration(double seconds) {
  char s[48];
  if (seconds < 10) std::snprintf(s, sizeof s, "%.2g s", std::max(0.01, seconds)); // two digits: short runs are estimated too
  else if (seconds < 120) std::snprintf(s, sizeof s, "%.0f s", seconds);
  else if (seconds < 7200) std::snprintf(s, sizeof s, "%.0f min", seconds / 60);
  else if (seconds < 3 * 86400) std::snprintf(s, sizeof s, "%.0f h", seconds / 3600);
  else std::snprintf(s, sizeof s, "%.0f days", seconds / 86400);
  return s;
}

std::string gib(double bytes) {
  char s[32];
  if (bytes < double(1ULL << 30)) std::snprintf(s, sizeof s, "%.0f MiB", bytes / double(1ULL << 20));
  else std::snprintf(s, sizeof s, "%.1f GiB", bytes / double(1ULL << 30));
  return s;
}

} // namespace

void WorkEstimate::addSequential(const WorkEstimate& o) {
  wallSeconds = seconds() + o.seconds();
  events += o.events;
  partial = partial || o.partial;
  runs += o.runCount();
  serialSeconds += o.serialSeconds;
  heldBytes += o.heldBytes;
  memoryBytes = std::max(memoryBytes, o.memoryBytes);
  if (o.simulatedSeconds > simulatedSeconds || slowestLink.empty()) slowestLink = o.slowestLink.empty() ? slowestLink : o.slowestLink;
  simulatedSeconds = std::max(simulatedSeconds, o.simulatedSeconds);
}

WorkEstimate CollectiveEstimator::operator()(const CollectiveWork& w) const {
  if (w.loopBytes == 0 || w.bytes <= w.loopBytes) return once(w, w.bytes);
  // One full loop is simulated and repeated, then the tail.
  Bytes loops = w.bytes / w.loopBytes, rest = w.bytes % w.loopBytes;
  WorkEstimate e = once(w, w.loopBytes);
  e.simulatedSeconds *= double(loops);
  if (rest > 0) {
    WorkEstimate tail = once(w, rest);
    e.events += tail.events;
    e.wallSeconds += tail.wallSeconds;
    e.simulatedSeconds += tail.simulatedSeconds;
  }
  return e;
}

WorkEstimate estimateCollective(const Cluster& cluster, const CollectiveWork& w) { return CollectiveEstimator(cluster)(w); }

std::size_t sizesToEstimate(std::size_t sizes, int ranks, std::size_t algorithms) {
  constexpr double kRankEstimates = double(1 << 24); // ~1 s of schedule builds
  double affordable = kRankEstimates / (double(std::max(ranks, 1)) * double(std::max<std::size_t>(algorithms, 1)));
  return std::min(sizes, std::max<std::size_t>(2, std::size_t(affordable)));
}

WorkEstimate interpolateEstimate(Bytes bytes, Bytes lowBytes, const WorkEstimate& low, Bytes highBytes,
                                 const WorkEstimate& high) {
  const double t = highBytes <= lowBytes ? 0.0
                   : lowBytes == 0      ? double(bytes - lowBytes) / double(highBytes - lowBytes)
                                        : std::log(double(bytes) / double(lowBytes)) / std::log(double(highBytes) / double(lowBytes));
  auto between = [t](double a, double b) {
    if (a <= 0 || b <= 0) return a + (b - a) * t;
    return std::exp(std::log(a) + (std::log(b) - std::log(a)) * t);
  };
  WorkEstimate e = t < 0.5 ? low : high; // what does not vary by size (lanes, the slowest link)
  e.events = between(low.events, high.events);
  e.memoryBytes = between(low.memoryBytes, high.memoryBytes);
  e.simulatedSeconds = between(low.simulatedSeconds, high.simulatedSeconds);
  e.wallSeconds = between(low.wallSeconds, high.wallSeconds);
  return e;
}

std::string describeEstimate(const WorkEstimate& e) {
  std::string about = e.partial ? "at least " : "about ";
  if (e.events == 0 && e.wallSeconds == 0 && !e.partial) return "nothing to simulate";
  if (e.events == 0 && e.wallSeconds > 0) // work that simulates nothing (topology): its time and memory
    return about + duration(e.seconds()) + ", " + gib(e.memoryBytes) + " of memory";
  return about + engineering(e.events) + " events (~" + duration(e.seconds()) + "), " + gib(e.memoryBytes) + " of memory";
}

void enforceClock(const WorkEstimate& run, const std::string& what) {
  if (run.simulatedSeconds > kMaxSimulatedSeconds)
    throw InputError(what + ": the simulated time would be at least " + duration(run.simulatedSeconds) +
                     ", beyond what collsim's picosecond clock holds (" + duration(kMaxSimulatedSeconds) +
                     "); check the link bandwidths, latencies and compute rates" +
                     (run.slowestLink.empty() ? "" : " (the slowest link: " + run.slowestLink + ")"));
}

WorkEstimate inParallel(WorkEstimate e, int threads) {
  constexpr double kCommandSeconds = 0.01; // starting the process: what `perf` of 8 ranks and 1 KiB takes
  const double atOnce = std::min(double(std::max(1, threads)), e.runCount());
  const double serial = std::min(e.serialSeconds, e.seconds());
  e.wallSeconds = kCommandSeconds + serial + (e.seconds() - serial) / std::min(atOnce, double(hardwareThreads()));
  e.memoryBytes = e.memoryBytes * atOnce + e.heldBytes;
  e.heldBytes = 0;
  return e;
}

bool pastLimits(const WorkEstimate& e, const WorkLimits& limits) {
  const WorkEstimate whole = inParallel(e, limits.parallelRuns);
  return e.simulatedSeconds > kMaxSimulatedSeconds || e.events > limits.maxEvents ||
         whole.memoryBytes > limits.maxMemoryBytes;
}

void enforceLimits(const WorkEstimate& total, const WorkLimits& limits, const std::string& what) {
  enforceClock(total, what);
  const WorkEstimate whole = inParallel(total, limits.parallelRuns);
  if (whole.events > limits.maxEvents)
    throw InputError(what + ": " + describeEstimate(whole) + "; the limit is " + engineering(limits.maxEvents) +
                     " events: raise --max-events or shrink the study");
  if (whole.memoryBytes > limits.maxMemoryBytes) {
    const double atOnce = std::min(double(std::max(1, limits.parallelRuns)), total.runCount());
    throw InputError(what + ": " + describeEstimate(whole) +
                     (atOnce > 1 ? " (" + std::to_string(int(atOnce)) + " runs at once)" : "") + "; the limit is " +
                     gib(limits.maxMemoryBytes) + ": raise --max-memory or shrink the study");
  }
}

} // namespace collsim
