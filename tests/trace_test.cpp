// The trace (--trace): its structure, checked as a viewer would read it,
// and its spans against the times the report gives.
//
// - every slice has a named track, and every named track has a slice;
// - process names are unique (one per run, named by its study point);
// - the last step of a run's ranks ends at the run's reported time, and
//   the steps' bytes add up to the reported bytes sent;
// - each message is one flow arrow, never backwards, and every step sends
//   (receives) as many arrows to (from) each peer as its operations list,
//   also when slots let senders run ahead;
// - at packet level, switch queue counters appear; --trace-ranks keeps only
//   the ranks asked for.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/trace/trace_recorder.h"
#include "relative_error.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Traced {
  json report, events;
};

// Runs `collsim ARGS --format json --trace FILE` and reads both.
Traced traced(std::vector<std::string> args) {
  fs::path file = fs::temp_directory_path() / ("collsim-trace-test-" + std::to_string(::getpid()) + ".json");
  args.insert(args.end(), {"--format", "json", "--trace", file.string()});
  CliResult r = cli(args);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::ifstream in(file);
  json trace = json::parse(in);
  fs::remove(file);
  return {json::parse(r.out), trace["traceEvents"]};
}

double endOf(const json& e) { return e["ts"].get<double>() + e["dur"].get<double>(); }

// The slices of one process by track, in time order: an arrow's ends are
// looked up by binary search (a four-server run has thousands of arrows).
using SlicesByTrack = std::map<int, std::vector<std::pair<double, const json*>>>;
SlicesByTrack slicesOf(const json& events, int pid) {
  SlicesByTrack tracks;
  for (const auto& e : events)
    if (e["ph"] == "X" && e["pid"] == pid) tracks[e["tid"].get<int>()].emplace_back(e["ts"].get<double>(), &e);
  for (auto& entry : tracks) std::sort(entry.second.begin(), entry.second.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return tracks;
}

// The slice of track `tid` that holds time `ts` strictly inside (a step's
// ends touch its neighbours', so only the inside binds an arrow). A track's
// slices do not overlap, so it is the last one starting before `ts`.
const json* sliceAt(const SlicesByTrack& tracks, int tid, double ts) {
  auto track = tracks.find(tid);
  if (track == tracks.end()) return nullptr;
  const auto& slices = track->second;
  auto after = std::lower_bound(slices.begin(), slices.end(), ts, [](const auto& s, double t) { return s.first < t; });
  if (after == slices.begin()) return nullptr;
  const json* e = std::prev(after)->second;
  return ts < endOf(*e) ? e : nullptr;
}

// How many times `rank` appears in a step's list (sends_to, receives_from).
int countIn(const json& slice, const char* key, int rank) {
  if (!slice["args"].contains(key)) return 0;
  std::string list = slice["args"][key], item;
  int n = 0;
  for (std::stringstream in(list); std::getline(in, item, ',');) n += std::stoi(item) == rank ? 1 : 0;
  return n;
}

// The flow arrows of process `pid`: each pairs one start with one end, never
// backwards, and every step sends (receives) as many arrows to (from) each
// peer as its operations list: with slots a sender runs ahead of its peer,
// so matching by time alone would land on the wrong step. Returns the count.
int checkFlows(const json& events, int pid, int ranks) {
  std::map<std::uint64_t, const json*> starts;
  for (const auto& e : events)
    if (e["pid"] == pid && e["ph"] == "s") starts[e["id"]] = &e;
  const SlicesByTrack tracks = slicesOf(events, pid);
  std::map<std::pair<const json*, int>, int> sentTo, receivedFrom; // (step, peer) -> arrows
  int flows = 0, unpaired = 0, backwards = 0, outsideSteps = 0;
  for (const auto& f : events) {
    if (f["pid"] != pid || f["ph"] != "f") continue;
    ++flows;
    if (starts.count(f["id"]) != 1) {
      ++unpaired;
      continue;
    }
    const json& s = *starts[f["id"]];
    backwards += f["ts"].get<double>() < s["ts"].get<double>() ? 1 : 0;
    const int from = s["tid"], to = f["tid"];
    const json* sender = sliceAt(tracks, from, s["ts"]);
    const json* receiver = sliceAt(tracks, to, f["ts"]);
    if (!sender || !receiver) {
      ++outsideSteps;
      continue;
    }
    ++sentTo[{sender, to % ranks}];
    ++receivedFrom[{receiver, from % ranks}];
  }
  // Counted, then checked once: thousands of CHECKs would cost more than the run.
  CHECK(unpaired == 0);
  CHECK(backwards == 0);
  CHECK(outsideSteps == 0);
  int sendMismatches = 0, receiveMismatches = 0;
  for (const auto& [key, n] : sentTo) sendMismatches += n != countIn(*key.first, "sends_to", key.second);
  for (const auto& [key, n] : receivedFrom) receiveMismatches += n != countIn(*key.first, "receives_from", key.second);
  CHECK(sendMismatches == 0);
  CHECK(receiveMismatches == 0);
  return flows;
}

void checkTracksNamed(const json& events) {
  std::set<std::pair<int, int>> named, used;
  std::set<std::string> processes;
  for (const auto& e : events) {
    if (e["name"] == "thread_name") CHECK(named.insert({e["pid"].get<int>(), e["tid"].get<int>()}).second);
    if (e["name"] == "process_name") CHECK(processes.insert(e["args"]["name"].get<std::string>()).second);
    if (e["ph"] == "X") {
      used.insert({e["pid"].get<int>(), e["tid"].get<int>()});
      CHECK(e["dur"].get<double>() >= 0);
      CHECK(e["ts"].get<double>() >= 0);
    }
  }
  CHECK(named == used); // no slice on an unnamed track, no empty track
}

} // namespace

TEST_CASE("a collective run's trace: named tracks, spans equal to the reported times, an arrow per message") {
  Traced t = traced({"run", "--set", "sizes=[64KiB,16MiB]"});
  checkTracksNamed(t.events);
  const json& results = t.report["results"];
  REQUIRE(results.size() == 2);
  for (int pid = 1; pid <= 2; ++pid) {
    const json& r = results[std::size_t(pid - 1)];
    CAPTURE(r["bytes"]);
    const int ranks = r["ranks"];
    double last = 0;
    std::uint64_t sent = 0;
    for (const auto& e : t.events)
      if (e["ph"] == "X" && e["pid"] == pid && e["tid"].get<int>() < ranks) {
        last = std::max(last, endOf(e));
        sent += e["args"]["bytes_sent"].get<std::uint64_t>();
        CHECK(e["args"].contains("phase")); // ring: reduce-scatter 1/2, all-gather 2/2
        CHECK(e["args"]["stream"] == 0);
      }
    CHECK_WITHIN(last, r["time_us"].get<double>(), 1e-12);
    CHECK(sent == r["bytes_sent"].get<std::uint64_t>());
    // Flow arrows: one per message, each from its sending step to its receiving one.
    int flows = checkFlows(t.events, pid, ranks);
    CHECK(flows == r["messages"].get<int>());
  }
}

TEST_CASE("a chunked run's steps carry their chunk - several channels their streams") {
  Traced t = traced({"perf", "--cluster", source("configs/clusters/dgx-a100-8.yaml"), "-b", "64MiB", "-e", "64MiB",
                     "--set", "library.channels=2", "--set", "library.protocol=Simple"});
  checkTracksNamed(t.events);
  std::set<int> chunks, streams;
  for (const auto& e : t.events)
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("stream")) {
      streams.insert(e["args"]["stream"].get<int>());
      if (e["args"].contains("chunk")) chunks.insert(e["args"]["chunk"].get<int>());
    }
  CHECK(streams == std::set<int>{0, 1});
  CHECK(chunks.size() > 1);
  CHECK(*chunks.begin() == 0);
  // Slots let senders run ahead of their peers: arrows still land on the
  // step whose receive takes the message.
  CHECK(checkFlows(t.events, 1, 8) == t.report["results"][0]["messages"].get<int>());
}

// The documented multi-server what-if (docs/whatif.md): four servers, where
// a RoCE message's step waits long after the send is posted; an arrow's tail
// halfway through its step ran backwards in 3,810 of 5,120 arrows.
TEST_CASE("on four servers every arrow starts at its send and none runs backwards") {
  Traced t = traced({"run", source("examples/whatif/study.yaml"), "--set", "sweep[cluster.servers]=[4]", "--set",
                     "sizes=[1MiB]"});
  const json& results = t.report["results"];
  REQUIRE(results.size() >= 2);
  for (std::size_t i = 0; i < results.size(); ++i) {
    CAPTURE(i);
    CHECK(checkFlows(t.events, int(i) + 1, results[i]["ranks"].get<int>()) == results[i]["messages"].get<int>());
  }
}

TEST_CASE("a study's runs are processes named by their point") {
  Traced t = traced({"run", source("scenarios/hierarchical-vs-flat.yaml"), "--set", "sweep[cluster.servers]=[2,4]",
                     "--set", "sizes=[1MiB]", "--set", "algo=[ring]"});
  checkTracksNamed(t.events); // process names unique
  std::vector<std::string> names;
  for (const auto& e : t.events)
    if (e["name"] == "process_name") names.push_back(e["args"]["name"]);
  REQUIRE(names.size() == 2);
  CHECK(contains(names[0], "cluster.servers=2"));
  CHECK(contains(names[1], "cluster.servers=4"));
}

TEST_CASE("at packet level: switch queue counters - --trace-ranks keeps the ranks asked for") {
  Traced all = traced({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--fidelity", "packet", "-b",
                       "1MiB", "-e", "1MiB"});
  checkTracksNamed(all.events);
  int queueSamples = 0;
  double deepest = 0;
  for (const auto& e : all.events)
    if (e["ph"] == "C" && contains(e["name"], "queue switch -> ")) {
      ++queueSamples;
      deepest = std::max(deepest, e["args"]["bytes"].get<double>());
      CHECK(e["args"]["bytes"].get<double>() >= 0);
    }
  CHECK(queueSamples > 10);
  CHECK(deepest > 0);
  // Each RoCE QP's DCQCN rate starts at its line rate: 100 Gb/s = 12.5 GB/s.
  std::map<std::string, double> firstRate;
  for (const auto& e : all.events)
    if (e["ph"] == "C" && contains(e["name"], "DCQCN QP ")) firstRate.emplace(e["name"], e["args"]["GB/s"].get<double>());
  CHECK(!firstRate.empty());
  for (const auto& [qp, rate] : firstRate) CHECK_WITHIN(rate, 12.5, 1e-12);
  // Arrows at packet level too: one per message, none backwards.
  CHECK(checkFlows(all.events, 1, 16) == all.report["results"][0]["messages"].get<int>());

  Traced some = traced({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--fidelity", "packet", "-b",
                        "1MiB", "-e", "1MiB", "--trace-ranks", "0-1,8"});
  checkTracksNamed(some.events);
  std::set<std::string> tracks;
  for (const auto& e : some.events)
    if (e["name"] == "thread_name") tracks.insert(e["args"]["name"]);
  CHECK(tracks.count("rank 0") == 1);
  CHECK(tracks.count("rank 1") == 1);
  CHECK(tracks.count("rank 8") == 1);
  CHECK(tracks.count("rank 2") == 0);
  for (const auto& name : tracks)
    if (name.rfind("link ", 0) == 0)
      CHECK((contains(name, "s0.dev0") || contains(name, "s0.dev1") || contains(name, "s1.dev0")));
}

TEST_CASE("rank lists for --trace-ranks") {
  CHECK(parseRankList("3") == std::vector<int>{3});
  CHECK(parseRankList("0-2,8,1") == std::vector<int>{0, 1, 2, 8});
  CHECK_THROWS_WITH_AS(parseRankList("4-2"), "range 4-2 runs backwards", std::invalid_argument);
  CHECK_THROWS_AS(parseRankList("a"), std::invalid_argument);
  CHECK_THROWS_AS(parseRankList("1,"), std::invalid_argument);
  CHECK_THROWS_AS(parseRankList(""), std::invalid_argument);
  CliResult r = cli({"run", "--trace-ranks", "0-3"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "--trace-ranks: it filters a trace; give --trace FILE too"));
  CliResult none = cli({"run", "--trace", "/dev/null", "--trace-ranks", "100-200", "--set", "sizes=[1MiB]"});
  CHECK(none.status == 0);
  CHECK(contains(none.err, "--trace-ranks names no rank of these runs"));
  CliResult bad = cli({"run", "--trace", "/dev/null", "--trace-ranks", "x"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "--trace-ranks x: expected a rank number"));
}

TEST_CASE("a trace stops at its event limit, says so, and stays valid JSON") {
  // Two ranks, one link each way: a few events are enough to reach a limit of 5.
  Cluster ring = hccsRing(2);
  TraceRecorder recorder(5);
  TraceSink* sink = recorder.beginRun("limited", ring);
  std::vector<Op> ops{Op{OpKind::Send, 1, 0, 8}};
  for (int step = 0; step < 10; ++step) sink->rankStep({0, 0, step, Time(step), Time(step + 1), 8, &ops, {}});
  CHECK(recorder.truncated());
  json doc = json::parse(recorder.json());
  CHECK(contains(doc["otherData"]["truncated"].get<std::string>(), "reached 5 events"));
  int steps = 0;
  for (const auto& e : doc["traceEvents"]) steps += e["ph"] == "X" ? 1 : 0;
  CHECK(steps == 5);
}

TEST_CASE("every link direction that carried data has its track, switch to switch too") {
  // 4 x 8 on a 2:1 leaf-spine: cross-leaf traffic climbs to the spines.
  Traced t = traced({"perf", "--cluster", source("configs/clusters/atlas-4x8-leafspine-2to1.yaml"), "--algo",
                     "hier:ring+rhd", "-b", "4MiB", "-e", "4MiB"});
  checkTracksNamed(t.events);
  int spineUp = 0, spineDown = 0;
  for (const auto& e : t.events)
    if (e["name"] == "thread_name") {
      const std::string name = e["args"]["name"];
      spineUp += name.rfind("link leaf", 0) == 0 && contains(name, "-> spine");
      spineDown += name.rfind("link spine", 0) == 0 && contains(name, "-> leaf");
    }
  CHECK(spineUp > 0);
  CHECK(spineDown > 0);
}
