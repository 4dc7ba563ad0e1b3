// Schedule files (`collsim schedule`, `--algo file:PATH`): an algorithm
// written out and read back is the same schedule; read back at any buffer
// size it computes its collective (the symbolic checker at uneven chunks,
// the threads transport on real sums); simulated, it takes the closed
// form's time; and a wrong file is refused at its line.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "algorithms/check/symbolic_checker.h"
#include "algorithms/core/chunked_schedule.h"
#include "sim/config/schedule_file.h"
#include "relative_error.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::testing;
namespace fs = std::filesystem;

namespace {

// A file in the temporary folder, removed at the end of the test.
struct TempSchedule {
  fs::path path;
  explicit TempSchedule(const std::string& text, const std::string& tag = "") {
    static int made = 0;
    path = fs::temp_directory_path() /
           ("collsim-schedule-" + std::to_string(::getpid()) + "-" + std::to_string(++made) + tag + ".json");
    std::ofstream(path) << text;
  }
  ~TempSchedule() { fs::remove(path); }
  std::string algo() const { return "file:" + path.string(); }
};

CollectiveSpec specOf(Collective op, int ranks, int devicesPerServer = 0, int root = 0) {
  CollectiveSpec spec;
  spec.op = op;
  spec.ranks = ranks;
  spec.devicesPerServer = devicesPerServer;
  spec.root = root;
  return spec;
}

// The microseconds `perf` reports for each algorithm of `algos` at one size.
std::map<std::string, double> perfTimes(const std::string& cluster, const std::string& algos, const std::string& size) {
  CliResult r = cli({"perf", "--cluster", source(cluster), "--algo", algos, "-b", size, "-e", size, "--format", "json"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::map<std::string, double> times;
  const nlohmann::json report = nlohmann::json::parse(r.out); // a loop over a temporary's member would dangle
  for (const auto& row : report["results"]) times[row["algorithm"].get<std::string>()] = row["time_us"].get<double>();
  return times;
}

} // namespace

TEST_CASE("an algorithm written as a file reads back as the same schedule, and is correct at uneven chunk sizes") {
  struct Case {
    Collective op;
    const char* algo;
    int ranks, devicesPerServer, root, chunks;
  };
  for (const Case& c : {Case{Collective::AllReduce, "ring", 8, 0, 0, 8}, Case{Collective::AllReduce, "rhd", 6, 0, 0, 6},
                        Case{Collective::AllReduce, "nb", 5, 0, 0, 10}, Case{Collective::AllReduce, "dbtree", 8, 0, 0, 32},
                        Case{Collective::AllReduce, "hier:ring+rhd", 16, 8, 0, 16},
                        Case{Collective::ReduceScatter, "hier:ring+ring", 16, 8, 0, 32},
                        Case{Collective::AllGather, "nhr", 7, 0, 0, 7}, Case{Collective::Broadcast, "ring", 5, 0, 2, 5},
                        Case{Collective::Reduce, "ring", 4, 0, 3, 8}}) {
    CAPTURE(c.algo);
    CAPTURE(collectiveName(c.op));
    const CollectiveSpec spec = specOf(c.op, c.ranks, c.devicesPerServer, c.root);
    ChunkedSchedule written = chunksOf(*findAlgorithm(c.op, c.algo), spec, c.chunks);
    TempSchedule file(scheduleFileText(written));
    auto read = readScheduleFile(file.path.string());
    CHECK(read->op == c.op);
    CHECK(read->root == c.root);
    CHECK(read->chunks == c.chunks);
    REQUIRE(read->streams.size() == written.streams.size());
    for (std::size_t k = 0; k < written.streams.size(); ++k) CHECK(read->streams[k] == written.streams[k]);

    // At one element per chunk the operations are the algorithm's own.
    CollectiveSpec one = read->oneElementPerChunk();
    one.devicesPerServer = c.devicesPerServer;
    SchedulePtr original = buildSchedule(*findAlgorithm(c.op, c.algo), one);
    SchedulePtr fromFile = scheduleOfChunks(read, GroupView::whole(one));
    REQUIRE(fromFile->streamCount() == original->streamCount());
    for (int k = 0; k < original->streamCount(); ++k)
      CHECK(materialize(fromFile->stream(k)) == materialize(original->stream(k)));

    // Chunks of different sizes (count not a multiple of the chunks, and
    // fewer elements than chunks): still the collective.
    for (std::uint64_t count : {std::uint64_t(c.chunks) * 7 + 3, std::uint64_t(c.chunks) - 1}) {
      CAPTURE(count);
      CollectiveSpec uneven = spec;
      uneven.count = count;
      CheckReport report = checkSchedule(*scheduleOfChunks(read, GroupView::whole(uneven)), uneven);
      CHECK_MESSAGE(report.ok(), report.summary());
    }
  }
}

TEST_CASE("a hand-written bidirectional ring runs: real sums on threads, and half the ring's time where links go both ways") {
  const std::string file = "file:" + source("tests/data/schedules/bidirectional-ring-allreduce-8.json");
  CliResult verified = cli({"verify", "--ranks", "8", "--algo", file, "--bytes", "999996B"});
  CHECK_MESSAGE(verified.status == 0, verified.err);
  CHECK(contains(verified.out, "OK: 0 wrong elements"));
  // hccs-ring-8: 12 GB/s each way, 1 us, no overheads. The ring moves n/p
  // = 8 MiB per step one way, 2(p-1) = 14 steps; the fast model sends it as
  // eight 1 MiB segments, each 1 MiB / 12 GB/s = 87,381,333.3 ps rounded up
  // to a whole picosecond: 14 x (1,000,000 + 8 x 87,381,334) ps =
  // 9800.709408 us. The file's two rings (one each way, on streams 0 and 1)
  // move n/2p = 4 MiB per step on both directions at once: 14 x (1,000,000 +
  // 4 x 87,381,334) ps = 4907.354704 us, half the ring's serialization.
  auto times = perfTimes("configs/clusters/hccs-ring-8.yaml", file + ",ring", "64MiB");
  CHECK(times["ring"] == doctest::Approx(9800.709408).epsilon(1e-12));
  CHECK(times[file] == doctest::Approx(4907.354704).epsilon(1e-12));
}

TEST_CASE("a written hierarchical schedule takes the algorithm's own time on two servers") {
  CliResult written = cli({"schedule", "--ranks", "16", "--devices-per-server", "8", "--algo", "hier:ring+rhd"});
  REQUIRE_MESSAGE(written.status == 0, written.err);
  TempSchedule file(written.out);
  // 16 MiB is a multiple of 16 ranks x 4 bytes: the file's chunks are the
  // algorithm's blocks, so every message and every time is the same.
  auto times = perfTimes("configs/clusters/atlas-2x8.yaml", file.algo() + ",hier:ring+rhd", "16MiB");
  CHECK(times[file.algo()] == times["hier:ring+rhd"]);
  CHECK(times[file.algo()] > 0);
  // A scenario's algo list takes it too.
  CliResult run = cli({"run", "--set", "cluster=" + source("configs/clusters/atlas-2x8.yaml"), "--set",
                       "algo=[" + file.algo() + "]", "--set", "sizes=[1MiB]"});
  CHECK_MESSAGE(run.status == 0, run.err);
}

TEST_CASE("a wrong schedule file is refused at its line, before anything runs") {
  const std::string head = "{\"collsim_schedule\": 1, \"collective\": \"allreduce\", \"ranks\": 2, \"chunks\": 2,\n"
                           " \"program\": [\n";
  // Rank 0 sends its second half and receives the first: both halves of a
  // 2-rank AllReduce; rank 1 is the mirror.
  const std::string rank0 = "  {\"rank\": 0, \"steps\": [[[\"send\", 1, 1], [\"recv_reduce\", 1, 0]], "
                            "[[\"send\", 1, 0], [\"recv\", 1, 1]]]},\n";
  const std::string good1 = "  {\"rank\": 1, \"steps\": [[[\"send\", 0, 0], [\"recv_reduce\", 0, 1]], "
                            "[[\"send\", 0, 1], [\"recv\", 0, 0]]]}\n ]}\n";
  auto refusal = [&](const std::string& rank1) {
    TempSchedule file(head + rank0 + rank1);
    CliResult r = cli({"verify", "--ranks", "2", "--algo", file.algo()});
    CHECK(r.status == 2);
    return r.err.substr(r.err.find(file.path.filename().string()) + file.path.filename().string().size());
  };
  {
    TempSchedule good(head + rank0 + good1);
    CliResult r = cli({"verify", "--ranks", "2", "--algo", good.algo(), "--bytes", "1001B"});
    CHECK_MESSAGE(r.status == 0, r.err);
  }
  // Rank 1 never receives rank 0's second message, and waits for one more.
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"send\", 0, 0], [\"recv_reduce\", 0, 1]], "
                         "[[\"send\", 0, 1]], [[\"recv\", 0, 0], [\"recv\", 0, 0]]]}\n ]}\n"),
                 ": the symbolic checker refuses the schedule"));
  // A reduction twice into the same chunk counts rank 0 twice.
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"send\", 0, 0], [\"recv_reduce\", 0, 1]], "
                         "[[\"send\", 0, 1], [\"recv_reduce\", 0, 1]]]}\n ]}\n"),
                 "symbolic checker"));
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"send\", 3, 0]]]}\n ]}\n"),
                 ":4:35: program[1].steps[0][0][1]: 3 is out of range 0..1"));
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"send\", 1, 0]]]}\n ]}\n"), "rank 1 names itself as its peer"));
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"send\", 0, 1, 2]]]}\n ]}\n"), "2 is out of range 0..1"));
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"wait\", 0, 1]]]}\n ]}\n"),
                 "a stream waits for another stream, not for itself"));
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"wait\", 3, 1]]]}\n ]}\n"), "no stream 3 (the program has 1)"));
  CHECK(contains(refusal("  {\"rank\": 0, \"steps\": []}\n ]}\n"), ":4:3: program[1]: rank 0 stream 0 appears twice"));
  CHECK(contains(refusal("  {\"rank\": 1, \"step\": []}\n ]}\n"), "did you mean 'steps'"));
  CHECK(contains(refusal("  {\"rank\": 1, \"steps\": [[[\"sned\", 0, 0]]]}\n ]}\n"), "'sned' is not one of"));

  TempSchedule uneven("{\"collsim_schedule\": 1, \"collective\": \"allreduce\", \"ranks\": 4, \"chunks\": 6, "
                      "\"program\": []}\n");
  CliResult r = cli({"verify", "--ranks", "4", "--algo", uneven.algo()});
  CHECK(r.status == 2);
  CHECK(contains(r.err, ":1:74: chunks: the chunks must be a multiple of the ranks (4)"));
  TempSchedule huge("{\"collsim_schedule\": 1, \"collective\": \"allreduce\", \"ranks\": 4096, \"chunks\": 4096, "
                    "\"program\": []}\n");
  r = cli({"verify", "--ranks", "4", "--algo", huge.algo()});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "more than the symbolic checker holds"));
}

TEST_CASE("a schedule file runs where it fits and says why not elsewhere") {
  const std::string file = "file:" + source("tests/data/schedules/ring-allreduce-8.json");
  CliResult wrongRanks = cli({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--algo", file});
  CHECK(wrongRanks.status == 2);
  CHECK(contains(wrongRanks.err, "the schedule is written for 8 ranks, not 16"));
  CliResult wrongOp = cli({"perf", "--cluster", source("configs/clusters/hccs-ring-8.yaml"), "--op", "allgather",
                           "--algo", file});
  CHECK(wrongOp.status == 2);
  CHECK(contains(wrongOp.err, "the schedule computes allreduce, not allgather"));
  CliResult missing = cli({"verify", "--algo", "file:/nonexistent/schedule.json"});
  CHECK(missing.status == 2);
  CHECK(contains(missing.err, "/nonexistent/schedule.json"));
  CliResult none = cli({"verify", "--algo", "file:"});
  CHECK(none.status == 2);
  CHECK(contains(none.err, "'file:' names no schedule file"));
  // What cannot be written says so: a 256-rank ring is more values than a
  // file holds (a 1,024-rank one more than the checker reading it holds,
  // refused before it is made), and AllToAll's buffer is not chunks.
  CliResult big = cli({"schedule", "--ranks", "256"});
  CHECK(big.status == 2);
  CHECK(contains(big.err, "a schedule file holds at most 100000"));
  CliResult alltoall = cli({"schedule", "--op", "alltoall", "--algo", "pairwise", "--ranks", "4"});
  CHECK(alltoall.status == 2);
  CHECK(contains(alltoall.err, "alltoall is not written as chunks"));
  CliResult chunks = cli({"schedule", "--ranks", "4", "--chunks", "6"});
  CHECK(chunks.status == 2);
  CHECK(contains(chunks.err, "--chunks: 6 is not a multiple of --ranks (4)"));
}

// Every algorithm `collsim schedule` writes, for every collective it
// writes, flat on 16 ranks and hierarchical (hier, hierpipe) on 2 servers
// of 8: the file reads back (`--algo file:` refused hierpipe's empty end
// ranges) and times as the algorithm does on atlas-2x8, at a size whose
// blocks are the file's chunks. An algorithm that cuts its pipeline by
// message size (the trees, hierpipe) is written as one cut, and says so.
TEST_CASE("every schedule collsim writes reads back and takes the algorithm's own time") {
  std::vector<std::unique_ptr<TempSchedule>> files;
  int written = 0;
  for (Collective op : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather, Collective::Broadcast,
                        Collective::Reduce}) {
    std::vector<std::string> algos = algorithmNames(op);
    const std::vector<std::string> flat = algos;
    for (const std::string& intra : flat)
      for (const std::string& inter : kSanitized ? std::vector<std::string>{"ring"} : flat)
        for (const char* kind : {"hier:", "hierpipe:"}) algos.push_back(kind + intra + "+" + inter);
    std::string list;
    std::map<std::string, std::string> fileOf; // the algorithm -> its file's --algo name
    std::vector<std::string> pipelined;        // files of algorithms that cut their pipeline by size
    for (const std::string& algo : algos) {
      CAPTURE(algo);
      CliResult r = cli({"schedule", "--op", collectiveName(op), "--algo", algo, "--ranks", "16",
                         "--devices-per-server", "8"});
      if (r.status == 2) continue; // an algorithm that cannot be written here says so (and is not asked for)
      REQUIRE_MESSAGE(r.status == 0, r.err);
      files.push_back(std::make_unique<TempSchedule>(r.out));
      if (findAlgorithm(op, algo)->pipelinesChunks) {
        CHECK(contains(r.err, algo + " cuts its pipeline by message size; the file fixes it as cut into 16 chunks"));
        pipelined.push_back(files.back()->algo());
      } else {
        CHECK(r.err.empty());
        fileOf[algo] = files.back()->algo();
      }
      list += (list.empty() ? "" : ",") + algo + "," + files.back()->algo();
      ++written;
    }
    CAPTURE(collectiveName(op));
    CliResult r = cli({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--op", collectiveName(op),
                       "--algo", list, "-b", "16MiB", "-e", "16MiB", "--format", "json"});
    REQUIRE_MESSAGE(r.status == 0, r.err);
    std::map<std::string, double> times;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const auto& row : report["results"]) times[row["algorithm"].get<std::string>()] = row["time_us"].get<double>();
    for (const auto& entry : fileOf) { // (clang 14 cannot capture a structured binding)
      const std::string& algo = entry.first;
      CAPTURE(algo);
      CHECK(times.at(entry.second) > 0);
      CHECK(times.at(entry.second) == doctest::Approx(times.at(algo)).epsilon(1e-9));
    }
    for (const std::string& file : pipelined) CHECK(times.at(file) > 0);
  }
  CHECK(written > (kSanitized ? 40 : 100));
}

TEST_CASE("a schedule too large to read back is refused before it is made") {
  CliResult huge = cli({"schedule", "--ranks", "65536", "--algo", "ring"});
  CHECK(huge.status == 2);
  CHECK(contains(huge.err, "--ranks 65536 --chunks 65536: 65536 ranks of 65536 chunks are more than the symbolic checker holds"));
  CHECK(cli({"schedule", "--ranks", "64", "--algo", "ring"}).status == 0);
}
