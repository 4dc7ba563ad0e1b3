// Result files are written safely, studies survive a failing point and an
// interruption, and selector CI cannot pass by accident.
#include <doctest/doctest.h>

#include <csignal>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "test_support.h"

#include "sim/report/flat_csv.h"
#include "sim/cli/command.h"
#include "sim/core/fingerprint.h"
#include "sim/study/study_journal.h"

using namespace collsim::testing;
namespace fs = std::filesystem;

namespace {

const std::string kSmall = source("tests/data/small.yaml");

// Names in `dir` other than `keep`: stray temporary files.
std::vector<std::string> strays(const TempDir& dir, const std::vector<std::string>& keep) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (std::find(keep.begin(), keep.end(), e.path().filename().string()) == keep.end())
      out.push_back(e.path().filename().string());
  return out;
}

} // namespace

TEST_CASE("CSV rows keep empty cells in their place, also the first, and quote what needs it") {
  CHECK(collsim::csvRow({"", "a", ""}) == ",a,\n");
  CHECK(collsim::csvRow({"x,y", "say \"hi\""}) == "\"x,y\",\"say \"\"hi\"\"\"\n");
  // Flat JSON rows (an object lists its keys sorted): the columns in the
  // order keys first appear; a missing key is an empty cell.
  std::vector<nlohmann::json> rows{{{"variant", ""}, {"step_us", 2.5}}, {{"variant", "b"}, {"fits", true}}};
  CHECK(collsim::flatRowsCsv(rows) == "step_us,variant,fits\n2.5,,\n,b,true\n");
}

TEST_CASE("--out replaces a regular file atomically and keeps its permissions") {
  TempDir dir;
  std::string out = dir.write("r.csv", "old\n");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  CliResult r = cli({"run", kSmall, "--format", "csv", "--out", out});
  REQUIRE(r.status == 0);
  CHECK(r.out.empty());
  CHECK(afterProvenance(slurp(out)).rfind("op,algorithm,ranks,bytes", 0) == 0);
  CHECK((fs::status(out).permissions() & fs::perms::all) ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
  CHECK(strays(dir, {"r.csv"}).empty());
}

TEST_CASE("--out through a symlink replaces its target and keeps the link") {
  TempDir dir;
  std::string target = dir.write("target.csv", "old\n");
  fs::create_symlink(target, dir / "link.csv");
  REQUIRE(cli({"run", kSmall, "--format", "csv", "--out", dir / "link.csv"}).status == 0);
  CHECK(fs::is_symlink(dir / "link.csv"));
  CHECK(afterProvenance(slurp(target)).rfind("op,algorithm", 0) == 0);
}

TEST_CASE("a symlink planted at PATH.tmp is never followed") {
  TempDir dir;
  std::string victim = dir.write("victim", "precious\n");
  fs::create_symlink(victim, dir / "r.csv.tmp");
  REQUIRE(cli({"run", kSmall, "--format", "csv", "--out", dir / "r.csv"}).status == 0);
  CHECK(slurp(victim) == "precious\n");
  CHECK(afterProvenance(slurp(dir / "r.csv")).rfind("op,algorithm", 0) == 0);
}

TEST_CASE("--out into a FIFO writes straight into it and leaves it a FIFO") {
  TempDir dir;
  std::string fifo = dir / "pipe";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = slurp(fifo); });
  CliResult r = cli({"run", kSmall, "--format", "csv", "--out", fifo});
  reader.join();
  CHECK(r.status == 0);
  CHECK(afterProvenance(received).rfind("op,algorithm", 0) == 0);
  CHECK(fs::is_fifo(fifo));
  CHECK(strays(dir, {"pipe"}).empty());
}

TEST_CASE("a device is written into, never replaced: /dev/full fails with exit 2 and stays a device") {
  CliResult r = cli({"run", kSmall, "--out", "/dev/full"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "--out /dev/full: cannot write: No space left on device"));
  CHECK(fs::is_character_file("/dev/full"));
  CliResult null = cli({"run", kSmall, "--out", "/dev/null", "--trace", "/dev/null"});
  CHECK(null.status == 0);
  CHECK(fs::is_character_file("/dev/null"));
}

TEST_CASE("a folder as --out or --trace is refused before the run, with no stray file") {
  TempDir dir;
  fs::create_directory(dir / "sub");
  CliResult r = cli({"run", kSmall, "--out", dir / "sub"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "--out " + (dir / "sub") + ": is a directory"));
  CliResult t = cli({"run", kSmall, "--out", dir / "r.json", "--trace", dir / "sub"});
  CHECK(t.status == 2);
  CHECK(contains(t.err, "--trace " + (dir / "sub") + ": is a directory"));
  CHECK(fs::is_empty(dir / "sub"));
  CHECK(strays(dir, {"sub"}).empty()); // r.json was not written either
}

TEST_CASE("nothing is written when the run fails: not the trace, not the results") {
  TempDir dir;
  // The output check passes, the run fails (an over-limit estimate).
  CliResult r = cli({"run", kSmall, "--out", dir / "r.csv", "--trace", dir / "t.json", "--max-events", "10"});
  CHECK(r.status == 2);
  CHECK(strays(dir, {}).empty());
  // Both writable: both written.
  CliResult ok = cli({"run", kSmall, "--out", dir / "r.csv", "--trace", dir / "t.json"});
  CHECK(ok.status == 0);
  CHECK(fs::exists(dir / "r.csv"));
  CHECK(nlohmann::json::parse(slurp(dir / "t.json")).contains("traceEvents"));
}

TEST_CASE("--out in a missing folder or with an over-long name is refused by option") {
  TempDir dir;
  CHECK(contains(cli({"run", kSmall, "--out", dir / "no/such.csv"}).err, "folder " + (dir / "no") + ": No such file"));
  CHECK(contains(cli({"run", kSmall, "--out", dir / std::string(300, 'x')}).err, "File name too long"));
  std::string dangling = dir / "dangling";
  fs::create_symlink(dir / "nowhere/x", dangling);
  CHECK(contains(cli({"run", kSmall, "--out", dangling}).err, "a symbolic link that leads nowhere"));
}

namespace {

// A toy study: one point per server count; 3 servers cannot run hier (the
// file's algo list), so that point alone fails.
std::string toyStudy() {
  return "name: toy\ncluster: " + source("configs/clusters/atlas-2x8.yaml") + "\ntraining: {model: " +
         source("tests/data/training/toy-model.yaml") + "}\nalgo: [ring]\nsweep: {cluster.servers: [1, 2, 3]}\n";
}

} // namespace

TEST_CASE("one failing study point keeps its row and the others complete (exit 3)") {
  TempDir dir;
  std::string study = dir.write("s.yaml", toyStudy());
  // 1 server has no second level: hier:ring+ring fails there, at load.
  CliResult r = cli({"run", study, "--set", "algo=hier:ring+ring", "--format", "json"});
  CHECK(r.status == 3);
  CHECK(contains(r.err, "1 of 3 points failed"));
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["failed_points"] == 1);
  REQUIRE(doc["points"].size() == 3);
  CHECK(doc["points"][0]["status"] == "failed");
  CHECK(contains(doc["points"][0]["error"].get<std::string>(), "needs a cluster of several servers"));
  CHECK(doc["points"][1]["status"] == "ok");
  CHECK(doc["points"][2]["step_us"].get<double>() > 0);
  CliResult table = cli({"run", study, "--set", "algo=hier:ring+ring"});
  CHECK(table.status == 3);
  CHECK(contains(table.out, "FAILED"));
  CHECK(contains(table.out, "# 1 point(s) failed:"));
  CliResult csv = cli({"run", study, "--set", "algo=hier:ring+ring", "--format", "csv"});
  CHECK(csv.status == 3);
  std::string body = afterProvenance(csv.out);
  CHECK(contains(body.substr(0, body.find('\n')), "status"));
}

TEST_CASE("a study whose every point fails is an input error (exit 2)") {
  TempDir dir;
  std::string study = dir.write("s.yaml", toyStudy());
  CliResult r = cli({"run", study, "--set", "training.bucket=1", "--out", dir / "r.json"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "choose a larger training.bucket"));
  CHECK(!fs::exists(dir / "r.json"));
  CHECK(!fs::exists(dir / "r.json.partial"));
}

TEST_CASE("--resume continues an interrupted study and gives the same results as one run") {
  TempDir dir;
  const std::string study = source("scenarios/capacity-plan-bert.yaml");
  const std::string out = dir / "plan.csv", journal = out + ".partial";
  // Interrupt a real run once a few points are in its partial results.
  pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1), dup2(null, 2);
    execl(COLLSIM_BINARY, COLLSIM_BINARY, "run", study.c_str(), "--format", "csv", "--out", out.c_str(), nullptr);
    _exit(127);
  }
  auto lines = [&] {
    std::ifstream in(journal);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  for (int i = 0; i < 6000 && lines() < 3; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  long done = lines() - 1; // the first line is the study's fingerprint
  REQUIRE(done >= 2);
  REQUIRE(!fs::exists(out)); // interrupted: no result file, only the journal

  CliResult resumed = cli({"run", study, "--format", "csv", "--out", out, "--resume"});
  REQUIRE(resumed.status == 0);
  CHECK(contains(resumed.err, "collsim: resuming: "));
  CHECK(!fs::exists(journal)); // done: the journal is gone
  CliResult fresh = cli({"run", study, "--format", "csv"});
  REQUIRE(fresh.status == 0);
  CHECK(afterProvenance(slurp(out)) == afterProvenance(fresh.out)); // the command lines differ (--resume)
}

TEST_CASE("--resume refuses partial results of another study, and needs --out") {
  TempDir dir;
  std::string study = dir.write("s.yaml", toyStudy());
  std::string out = dir / "r.json";
  // Partial results left by a run whose output could not be written, resumed with another seed.
  REQUIRE(cli({"run", study, "--out", out, "--trace", "/dev/full"}).status == 2);
  REQUIRE(fs::exists(out + ".partial"));
  CliResult r = cli({"run", study, "--out", out, "--resume", "--seed", "7"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "holds partial results of another study"));
  CHECK(contains(cli({"run", study, "--resume"}).err, "--resume needs --out FILE"));
  CHECK(contains(cli({"run", study, "--out", dir / "x.json", "--resume"}).err, "--resume: no partial results at"));
}

TEST_CASE("a study journal reads back only sound records, and is written like --out") {
  using collsim::StudyJournal, collsim::TrainingPoint, collsim::UsageError;
  TempDir dir;
  const std::string path = dir / "r.json.partial";
  const std::string key = "base\x1fring"; // a point's key ends with its algorithm
  TrainingPoint good;
  good.algorithm = "ring", good.status = "ok";
  good.step.ranks = 8, good.step.iteration = 5'000'000;
  collsim::ParallelLayout layout;
  layout.tp = 2, layout.pp = 2, layout.dp = 2;
  good.step.layout = layout;
  {
    StudyJournal journal(path, "fp", false);
    CHECK(journal.append(key, good).empty());
  }
  // Damaged records, each with a check that matches it (so that the reader's
  // own validation is what refuses it): no times at all (it crashed the
  // reader), negative times, a wrong type, a number past its field's range
  // (an undefined cast before), a schedule collsim has not, a layout of dp 0,
  // a newline in the algorithm (a row of its own in a table), another
  // point's algorithm; then a record whose key was swapped (its check no
  // longer matches) and a torn line. Each point runs again.
  std::string record = nlohmann::json::parse(trainingPointRecord(good)).dump();
  auto damaged = [&](const std::string& from, const std::string& to, const std::string& k = "base\x1fring") {
    std::string r = record;
    REQUIRE(r.find(from) != std::string::npos);
    r.replace(r.find(from), from.size(), to);
    std::string point = nlohmann::json::parse(r).dump();
    return nlohmann::json{{"key", k}, {"point", nlohmann::json::parse(point)},
                          {"check", collsim::Fingerprint().add(k).add(point).hex()}}.dump() + "\n";
  };
  std::string times = record.substr(record.find("\"times\":"));
  times = times.substr(0, times.find(']') + 1);
  std::string swapped = damaged("\"status\":\"ok\"", "\"status\":\"ok\"");
  swapped.replace(swapped.find("base"), 4, "other");
  {
    std::ofstream out(path, std::ios::app);
    out << damaged(times, "\"times\":[]") << damaged(times, "\"times\":[8,1,1,-5,0,0,0,0,0,0]")
        << damaged(times, "\"times\":\"x\"") << damaged(times, "\"times\":[1e300,1,1,5,0,0,0,0,0,0]")
        << damaged("[2,2,2,0,1,1,", "[2,2,2,0,1,99,") << damaged("[2,2,2,", "[2,2,0,")
        << damaged("\"algorithm\":\"ring\"", "\"algorithm\":\"ring\\nfake,row\"")
        << damaged("\"algorithm\":\"ring\"", "\"algorithm\":\"rhd\"") << swapped << "{\"key\":\"torn\",\"po";
  }
  {
    StudyJournal resumed(path, "fp", true);
    CHECK(resumed.recovered().size() == 1);
    CHECK(resumed.recovered().count(key) == 1);
    CHECK(resumed.recovered().at(key).step.iteration == 5'000'000);
    CHECK(resumed.skipped() == 10);
  }
  // Written anew: only the sound record is left.
  const std::string rewritten = slurp(path);
  CHECK(std::count(rewritten.begin(), rewritten.end(), '\n') == 2);
  // A hard link at the journal's name keeps its content.
  const std::string kept = dir.write("kept.txt", "keep me\n");
  fs::remove(path);
  REQUIRE(::link(kept.c_str(), path.c_str()) == 0);
  { StudyJournal fresh(path, "fp", false); }
  CHECK(slurp(kept) == "keep me\n");
  // A FIFO or a symlink there is refused at once, neither waited on nor followed.
  fs::remove(path);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK_THROWS_WITH_AS(StudyJournal(path, "fp", false), doctest::Contains("not a regular file"), UsageError);
  CHECK_THROWS_WITH_AS(StudyJournal(path, "fp", true), doctest::Contains("not a regular file"), UsageError);
  fs::remove(path);
  fs::create_symlink(kept, path);
  CHECK_THROWS_WITH_AS(StudyJournal(path, "fp", false), doctest::Contains("not a regular file"), UsageError);
  CHECK(slurp(kept) == "keep me\n");
}

// A signal while the outputs are staged (each written into a temporary of
// its folder before the renames) removes the temporaries: here the trace is
// a FIFO nobody reads, so the run waits with --out's temporary in place,
// and SIGTERM ends it (as SIGTERM does) without leaving `.r.txt.XXXXXX`.
TEST_CASE("a signal during the final write leaves no temporary file behind") {
  TempDir dir;
  const std::string out = dir / "r.txt", fifo = dir / "trace.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string cluster = source("configs/clusters/atlas-2x8.yaml");
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    execl(COLLSIM_BINARY, COLLSIM_BINARY, "perf", "--cluster", cluster.c_str(), "-e", "1MiB", "--out", out.c_str(),
          "--trace", fifo.c_str(), nullptr);
    ::_exit(127);
  }
  auto staged = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) n += e.path().filename().string().rfind(".r.txt.", 0) == 0;
    return n;
  };
  for (int i = 0; i < 3000 && staged() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(staged() == 1);
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(staged() == 0);
  CHECK_FALSE(fs::exists(out));
}

// A real study's journal, cut short (tests/data/journal: the toy study of
// scripts/mutation_run.py, its first 13 records and half of the 14th, as
// SIGKILL leaves one; the fuzzing seeds take it too): every whole record
// reads back, the torn one is dropped.
TEST_CASE("a real study's interrupted journal reads back all its whole records") {
  const std::string text = slurp(source("tests/data/journal/toy-study.partial"));
  const nlohmann::json header = nlohmann::json::parse(text.substr(0, text.find('\n')));
  std::vector<collsim::InputRead> inputs; // the files the study read, as the header lists them
  for (const auto& in : header["inputs"]) inputs.push_back({in[0], in[0], "", in[1], 0, 0});
  collsim::JournalContents read = collsim::parseJournal(text, header["study"], "toy-study.partial", inputs);
  const auto lines = std::count(text.begin(), text.end(), '\n'); // the header's and each whole record's
  CHECK(read.recovered.size() == std::size_t(lines - 1));
  CHECK(read.skipped == 1);
  for (const auto& record : read.recovered) {
    const std::string& key = record.first; // (clang 14 cannot capture a structured binding)
    CAPTURE(key);
    CHECK(record.second.status == "ok");
    CHECK(record.second.step.iteration > 0);
  }
}

// Two runs with one --out: the second is refused at once, naming the
// process that holds the journal. A journal that cannot be written (here
// the file size limit, as a full disk would) is said once, and the study
// goes on. A journal larger than any collsim writes is refused unread.
TEST_CASE("a study journal is held by one run, says when it cannot be written, and has a size limit") {
  using collsim::StudyJournal, collsim::TrainingPoint, collsim::UsageError;
  TempDir dir;
  const std::string path = dir / "r.json.partial";
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    StudyJournal held(path, "fp", false);
    char c = 1;
    if (::write(ready[1], &c, 1) != 1) ::_exit(1);
    ::sleep(30);
    ::_exit(0);
  }
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  CHECK_THROWS_WITH_AS(StudyJournal(path, "fp", false),
                       doctest::Contains(("another collsim run (process " + std::to_string(child) + ")").c_str()),
                       UsageError);
  CHECK_THROWS_WITH_AS(StudyJournal(path, "fp", true), doctest::Contains("another collsim run"), UsageError);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  { StudyJournal free(path, "fp", false); } // the holder is gone: the journal is free

  int result[2];
  REQUIRE(::pipe(result) == 0);
  child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    StudyJournal journal(path, "fp", false);
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_FSIZE, &none);
    TrainingPoint p;
    p.algorithm = "ring", p.status = "ok";
    std::string first = journal.append("k\x1fring", p), second = journal.append("k\x1fring", p);
    std::string said = first + "|" + second;
    if (::write(result[1], said.data(), said.size()) < 0) ::_exit(1);
    ::_exit(0);
  }
  ::close(result[1]);
  std::string said;
  char buffer[512];
  for (ssize_t n; (n = ::read(result[0], buffer, sizeof buffer)) > 0;) said.append(buffer, std::size_t(n));
  ::waitpid(child, nullptr, 0);
  CHECK(contains(said, "cannot write partial results to " + path));
  CHECK(contains(said, "an interruption now loses what it did|")); // the second append says nothing
  CHECK(said.back() == '|');

  {
    std::ofstream big(path, std::ios::trunc);
    big << "{\"collsim_journal\":1,\"study\":\"fp\"}\n";
  }
  REQUIRE(::truncate(path.c_str(), off_t(collsim::kMaxJournalBytes) + 1) == 0);
  CHECK_THROWS_WITH_AS(StudyJournal(path, "fp", true), doctest::Contains("more than the 256 MiB a journal may"), UsageError);
}

namespace {

struct SelectorFixture {
  TempDir dir;
  std::string grid = source("tests/data/selector/small-grid.yaml");
  std::string rules = source("configs/selector/hccl-910b.yaml");
  std::string baseline = dir / "baseline.json";
  CliResult check(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"selector", "check", "--rules", rules, "--grid", grid, "--baseline", baseline};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  }
};

} // namespace

TEST_CASE("selector check: a stamped baseline, and --update-baseline says what it wrote") {
  SelectorFixture f;
  CliResult w = f.check({"--update-baseline"});
  REQUIRE(w.status == 0);
  CHECK(contains(w.err, "collsim: wrote baseline " + f.baseline + ": 4 points of grid small-grid (fingerprint "));
  auto doc = nlohmann::json::parse(slurp(f.baseline));
  CHECK(doc["collsim_version"] == COLLSIM_VERSION_STRING);
  CHECK(doc["grid_fingerprint"].get<std::string>().size() == 16);
  CliResult same = f.check();
  CHECK(same.status == 0);
  CHECK(contains(same.out, "0 regression(s), 0 improvement(s), 0 pick change(s), 0 point(s) new to the baseline, 0 missing"));
  CHECK(!contains(same.out, "NOTE"));
}

TEST_CASE("selector check reports new and missing points, pick changes and a changed stamp") {
  SelectorFixture f;
  REQUIRE(f.check({"--update-baseline"}).status == 0);
  auto doc = nlohmann::json::parse(slurp(f.baseline));
  std::string dropped = doc["points"][0]["key"];
  doc["points"].erase(0);                                        // the grid now has a point the baseline lacks
  doc["points"].push_back({{"key", "allreduce 1GiB gone"}, {"pick", "ring"}, {"rule", "r"}, {"best", "ring"}, {"regret", 0.0}});
  std::string changedKey = doc["points"][0]["key"];
  doc["points"][0]["pick"] = "mesh";                             // an older pick
  doc["points"][0]["rule"] = "old-rule";
  doc["points"][0]["regret"] = 5.0;                              // ... that was much worse: an improvement now
  doc["collsim_version"] = "0.0.1";
  std::ofstream(f.baseline) << doc.dump(2);
  CliResult r = f.check();
  CAPTURE(r.out);
  CHECK(r.status == 1); // the baseline no longer covers the grid
  CHECK(contains(r.out, "#   NEW " + dropped + ": not in the baseline"));
  CHECK(contains(r.out, "#   MISSING allreduce 1GiB gone: in the baseline, not in the grid"));
  CHECK(contains(r.out, "#   pick " + changedKey + ": mesh (old-rule) -> "));
  CHECK(contains(r.out, "#   improvement " + changedKey + ": regret 500.0% -> "));
  CHECK(contains(r.out, "# NOTE: collsim 0.0.1 -> " COLLSIM_VERSION_STRING));

  CliResult json = f.check({"--format", "json"});
  auto j = nlohmann::json::parse(json.out);
  CHECK(j["baseline"]["passed"] == false);
  CHECK(j["new_points"].size() == 1);
  CHECK(j["missing_points"].size() == 1);
  CHECK(j["pick_changes"].size() == 1);
  CHECK(j["improvements"].size() == 1);
}

TEST_CASE("selector check --format junit and md for CI") {
  SelectorFixture f;
  REQUIRE(f.check({"--update-baseline"}).status == 0);
  f.rules = source("tests/data/selector/bad-threshold.yaml");
  CliResult x = f.check({"--format", "junit"});
  CHECK(x.status == 1);
  CHECK(x.out.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"collsim\" tests=\"4\"", 0) == 0);
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = 0; (at = x.out.find(what, at)) != std::string::npos; ++at) ++n;
    return n;
  };
  CHECK(count("<testcase ") == 4);
  CHECK(count("<failure ") >= 1);
  CHECK(contains(x.out, "failures=\"" + std::to_string(count("<failure ")) + "\""));
  CHECK(count("</testcase>") == 4);
  CliResult md = f.check({"--format", "md"});
  CHECK(md.status == 1);
  CHECK(md.out.rfind("## Selector check: rules `bad-threshold` on grid `small-grid`", 0) == 0);
  CHECK(contains(md.out, "**FAILED**"));
  CHECK(contains(md.out, "| point | change | regret before | regret after |"));
  CHECK(contains(md.out, "| regression |"));
}

TEST_CASE("select uses its built-in rules from any folder") {
  TempDir dir;
  auto here = fs::current_path();
  fs::current_path(dir.path());
  CliResult r = cli({"select", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--bytes", "64MiB", "--explain"});
  fs::current_path(here);
  CHECK(r.status == 0);
  CHECK(r.out.rfind("hierpipe:ring+ring\n", 0) == 0);
  CHECK(contains(r.out, "# rules hccl-910b: pipeline-2-3-servers-ring"));
}

// The 7 B decoder's weights, gradients and Adam state alone are 16 B a
// parameter (6.74 G of them: some 100 GiB) against the 32 GiB of an Atlas
// NPU: the step row says it does not fit, in every form. With the device's
// memory raised past its total, it fits.
TEST_CASE("a training point that does not fit its device is flagged in the step table and the JSON") {
  const std::string scenario = source("tests/data/training/decoder-7b-2x8.yaml");
  CliResult table = cli({"run", scenario});
  REQUIRE(table.status == 0);
  CHECK(contains(table.out, "memory_GiB  headroom_GiB  fits"));
  CHECK(contains(table.out, "# 1 point(s) do not fit in their device's memory"));
  auto doc = nlohmann::json::parse(cli({"run", scenario, "--format", "json"}).out);
  CHECK(doc["points"][0]["fits"] == false);
  CHECK(doc["points"][0]["memory_bytes"]["total"].get<double>() > 100.0 * double(1ULL << 30));
  CliResult roomy = cli({"run", scenario, "--set", "cluster.device.memory=128GiB", "--format", "json"});
  REQUIRE(roomy.status == 0);
  CHECK(nlohmann::json::parse(roomy.out)["points"][0]["fits"] == true);
  CHECK_FALSE(contains(cli({"run", scenario, "--set", "cluster.device.memory=128GiB"}).out, "do not fit"));
}

// MFU counts useful work only: forward + backward = 3 x the forward FLOPs
// (29.2 T a sample for the 7 B decoder), over the devices' peak (256
// TFLOPS each by default) in the step's time. With full recomputation the
// devices do 4 x forward at 45 % of peak, so MFU stays below 0.45 x 3/4.
// Tokens need a sequence: only models given by shape have one.
TEST_CASE("the step table's MFU and tokens/s follow from the model's FLOPs and shape") {
  const std::string scenario = source("tests/data/training/decoder-7b-2x8.yaml");
  auto point = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", scenario, "--format", "json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CliResult r = cli(args);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out)["points"][0];
  };
  auto p = point({});
  double samples = p["samples_per_s"].get<double>(), mfu = p["mfu"].get<double>();
  CHECK(mfu == doctest::Approx(3 * 29.2e12 * samples / (256e12 * 16)).epsilon(1e-3));
  CHECK(mfu < 0.45 * 3 / 4);
  CHECK(p["tokens_per_s"].is_null());
  auto llama = point({"--set", "training.model=" + source("configs/models/llama3-8b.yaml")});
  CHECK(llama["tokens_per_s"].get<double>() == doctest::Approx(8192 * llama["samples_per_s"].get<double>()));
  CHECK(llama["mfu"].get<double>() > 0);
}

TEST_CASE("every result names its collsim and command line, and JSON holds the input as it ran: rerun, same results") {
  TempDir dir;
  const std::vector<std::string> args = {"run", kSmall, "--set", "sizes=[4KiB, 64KiB]", "--set", "cluster.hccs.latency=2us"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = args;
    a.insert(a.end(), extra.begin(), extra.end());
    return cli(a);
  };
  CliResult json = with({"--format", "json"});
  REQUIRE(json.status == 0);
  auto doc = nlohmann::ordered_json::parse(json.out);
  CHECK(doc.begin().key() == "collsim_version");
  CHECK(doc["collsim_version"] == COLLSIM_VERSION_STRING);
  CHECK(doc["command_line"] == "collsim run " + kSmall + " --set 'sizes=[4KiB, 64KiB]' --set cluster.hccs.latency=2us --format json");
  std::string input = doc["resolved_input"].get<std::string>();
  CHECK(contains(input, "latency: 2us"));
  // The resolved input, run as it is, gives the same results.
  std::string rerun = dir.write("rerun.yaml", input);
  CliResult again = cli({"run", rerun, "--format", "json"});
  REQUIRE(again.status == 0);
  auto second = nlohmann::json::parse(again.out);
  CHECK(second["results"] == nlohmann::json::parse(json.out)["results"]);
  CHECK(second["results"].size() == 2);

  std::string stamp = std::string("# collsim ") + COLLSIM_VERSION_STRING + ": collsim run ";
  CHECK(with({}).out.rfind(stamp, 0) == 0);
  CHECK(with({"--format", "csv"}).out.rfind(stamp, 0) == 0);
  CHECK(with({"--format", "md"}).out.rfind(std::string("<!-- collsim ") + COLLSIM_VERSION_STRING + ": collsim run ", 0) == 0);
}

TEST_CASE("select --explain and selector check are under the same limit as run: estimated first, refused or printed") {
  const std::string cluster = source("configs/clusters/atlas-2x8.yaml");
  // select simulates only with --explain: every candidate, one after another.
  CliResult refused = cli({"select", "--cluster", cluster, "--explain", "--max-events", "10"});
  CHECK(refused.status == 2);
  CHECK(contains(refused.err, "select --explain: at least ")); // stopped at the first candidate past the limit
  CHECK(contains(refused.err, "raise --max-events"));
  CliResult estimate = cli({"select", "--cluster", cluster, "--explain", "--estimate"});
  CHECK(estimate.status == 0);
  CHECK(contains(estimate.out, "select --explain: about "));
  CHECK(!contains(estimate.out, "<- picked")); // nothing simulated
  // Without --explain nothing is simulated, so no limit can refuse it.
  CHECK(cli({"select", "--cluster", cluster, "--max-events", "1"}).status == 0);

  const std::vector<std::string> check = {"selector", "check", "--rules", source("configs/selector/hccl-910b.yaml"),
                                          "--grid", source("tests/data/selector/small-grid.yaml")};
  std::vector<std::string> args = check;
  args.insert(args.end(), {"--max-events", "10"});
  refused = cli(args);
  CHECK(refused.status == 2);
  CHECK(contains(refused.err, "selector check on "));
  CHECK(contains(refused.err, "raise --max-events"));
  args = check;
  args.push_back("--estimate");
  estimate = cli(args);
  CHECK(estimate.status == 0);
  CHECK(contains(estimate.out, "selector check on "));
  CHECK(splitLines(estimate.out).size() == 1); // the estimate, and no report: nothing was simulated
}

// topology simulates nothing, but its JSON of the largest cluster collsim
// builds takes over a GiB: estimated from its nodes and links like any work.
TEST_CASE("topology is under the same limit: its time and memory estimated per format, refused or printed") {
  const std::string cluster = source("configs/clusters/atlas-2x8.yaml");
  CliResult small = cli({"topology", "--cluster", cluster, "--format", "json", "--estimate"});
  CHECK(small.status == 0);
  CHECK(small.out == "topology of atlas-2x8: about 0.01 s, 8 MiB of memory\n"); // 17 nodes and 32 links
  // 4,096 servers: 32,769 nodes and 65,536 links, 1,520 bytes each as a JSON document.
  CliResult json = cli({"topology", "--cluster", cluster, "--set", "servers=4096", "--format", "json", "--estimate"});
  CHECK(json.out == "topology of atlas-2x8: about 0.95 s, 151 MiB of memory\n");
  CliResult dot = cli({"topology", "--cluster", cluster, "--set", "servers=4096", "--format", "dot", "--estimate"});
  CHECK(dot.out == "topology of atlas-2x8: about 0.2 s, 31 MiB of memory\n");
  CliResult refused = cli({"topology", "--cluster", cluster, "--set", "servers=4096", "--format", "json", "--max-memory", "100MiB"});
  CHECK(refused.status == 2);
  CHECK(refused.out.empty());
  CHECK(contains(refused.err, "topology of atlas-2x8: about 0.95 s, 151 MiB of memory; the limit is 100 MiB: raise --max-memory"));
  CHECK(cli({"topology", "--cluster", cluster, "--set", "servers=4096", "--format", "dot", "--max-memory", "100MiB"}).status == 0);
}

// compare simulates every size of a log, and calibrate a comparison per
// step of its search: both estimated first, like run.
TEST_CASE("compare and calibrate are under the same limit: estimated first, refused or printed") {
  const std::string log = source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt");
  const std::string cluster = source("configs/clusters/dgx-a100-8.yaml");
  for (const char* command : {"compare", "calibrate"}) {
    CAPTURE(command);
    CliResult estimate = cli({command, log, "--cluster", cluster, "--estimate"});
    CHECK(estimate.status == 0);
    CHECK(splitLines(estimate.out).size() == 1); // the estimate, and no report: nothing was simulated
    CHECK(contains(estimate.out, " events (~"));
    CliResult refused = cli({command, log, "--cluster", cluster, "--max-events", "1000"});
    CHECK(refused.status == 2);
    CHECK(refused.out.empty());
    CHECK(contains(refused.err, log + ": about "));
    CHECK(contains(refused.err, "the limit is 1000 events: raise --max-events"));
  }
  // A fit costs its comparisons: at least 40 of the one compare's events.
  auto events = [](const std::string& line) { return std::stod(line.substr(line.find("about ") + 6)); };
  double compare = events(cli({"compare", log, "--cluster", cluster, "--estimate"}).out);
  double fit = events(cli({"calibrate", log, "--cluster", cluster, "--estimate"}).out);
  CHECK(fit >= 40 * compare * 0.99);
  // Training runs: the fit of the device's figures.
  CliResult runs = cli({"calibrate", source("tests/data/training/measured-mpt-125m.yaml"), "--estimate"});
  CHECK(runs.status == 0);
  CHECK(contains(runs.out, "calibrating against "));
  CHECK(splitLines(runs.out).size() == 1);
}

