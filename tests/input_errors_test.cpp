// Bad input of every kind ends with exit status 2 and one message that says
// where (file:line:col, or the option): never exit 1 (an internal fault),
// never a crash, a hang or unbounded memory. One test per rejection.
#include <doctest/doctest.h>

#include <unistd.h>

#include "test_support.h"

#include "sim/run/work_estimate.h"

using namespace collsim::testing;

namespace {

const std::string kRing8 = source("configs/clusters/hccs-ring-8.yaml");

// A collective scenario on the shipped 8-device ring with `extra` lines.
std::string scenario(const std::string& extra, const std::string& algo = "ring", const std::string& sizes = "[1MiB]") {
  return "name: t\ncluster: " + kRing8 + "\nop: allreduce\nalgo: " + algo + "\nsizes: " + sizes + "\n" + extra;
}

std::string training(const std::string& extra) {
  return "name: t\ncluster: " + kRing8 + "\ntraining: {model: " + source("tests/data/training/toy-model.yaml") + "}\n" +
         extra;
}

// Runs collsim and expects exit 2 with every one of `parts` in its message.
void rejects(const std::vector<std::string>& args, const std::vector<std::string>& parts) {
  CliResult r = cli(args);
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  for (const auto& p : parts) CHECK(contains(r.err, p));
}

} // namespace

TEST_CASE("a global HCCL_ALGO leaves broadcast its default instead of crashing") {
  TempDir dir;
  std::string env = dir.write("env.sh", "export HCCL_ALGO=\"level0:NA;level1:H-D_R\"\n");
  CliResult r = cli({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--op", "broadcast", "-b", "1MiB",
                     "-e", "1MiB", "--env-file", env, "--format", "json"});
  REQUIRE(r.status == 0);
  CHECK(contains(r.err, "does not apply to broadcast, which keeps its default"));
  CHECK(contains(r.out, "\"algorithm\": \"ring\""));
  // AllReduce takes it.
  CliResult all = cli({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "-b", "1MiB", "-e", "1MiB",
                       "--env-file", env, "--format", "csv"});
  REQUIRE(all.status == 0);
  CHECK(contains(all.out, "allreduce,hier:ring+rhd,16,"));
  // select never names an algorithm broadcast does not have.
  CliResult sel = cli({"select", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--op", "broadcast", "--env-file", env});
  REQUIRE(sel.status == 0);
  CHECK(sel.out == "hier:ring+ring\n");
}

TEST_CASE("an HCCL_ALGO named for an operation that lacks it is an error naming the variable") {
  TempDir dir;
  std::string env = dir.write("env.sh", "export HCCL_ALGO=\"broadcast=level0:NA;level1:H-D_R\"\n");
  rejects({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--op", "broadcast", "--env-file", env},
          {env + ":1: HCCL_ALGO=", "no algorithm 'hier:ring+rhd' for broadcast"});
}

TEST_CASE("mapping keys that are lists or mappings are located errors") {
  TempDir dir;
  rejects({"run", dir.write("top.yaml", "[a]: 1\n")}, {"top.yaml:1:1: a mapping key must be a single value"});
  rejects({"run", dir.write("cluster.yaml", scenario("").replace(0, 7, "name: t\n{x: 1}: 2\n"))},
          {"cluster.yaml:2:1: a mapping key must be a single value"});
  std::string rules = dir.write("rules.yaml", "name: r\nrules:\n  - name: a\n    [b]: ring\n");
  rejects({"select", "--cluster", kRing8, "--rules", rules}, {"rules.yaml:4:5: a mapping key must be a single value"});
  rejects({"run", dir.write("variant.yaml", training("variants:\n  - name: a\n    set: {[training.bucket]: 1MB}\n"))},
          {"variant.yaml:6:11: a mapping key must be a single value"});
}

// YAML files are one document: what follows a '---' would be silently lost.
TEST_CASE("a second YAML document is refused where it starts") {
  TempDir dir;
  rejects({"run", dir.write("two.yaml", scenario("") + "---\nname: other\n")}, {"two.yaml:", "a second YAML document"});
  rejects({"perf", "--cluster", dir.write("c.yaml", "---\nname: c\n---\nname: d\n")},
          {"c.yaml:3:1: a second YAML document"});
  rejects({"run", dir.write("ended.yaml", scenario("") + "...\n# a comment\nname: other\n")},
          {"ended.yaml:8:1: a second YAML document"});
  CliResult one = cli({"run", dir.write("one.yaml", "%YAML 1.2\n---\n" + scenario("") + "...\n")});
  CHECK(one.status == 0); // one document, marked, after a directive
}

// The bucket count is the step's to check, but the error says where the
// bucket was set: in the file, or on the command line.
TEST_CASE("a bucket that cuts the gradients too fine is an error at the bucket") {
  TempDir dir;
  const std::string model = source("tests/data/training/toy-model.yaml");
  std::string file = dir.write("bucket.yaml", "name: t\ncluster: " + kRing8 + "\ntraining:\n  model: " + model +
                                                  "\n  bucket: 1\n");
  rejects({"run", file}, {"bucket.yaml:5:11: ", "a bucket of 1B cuts", "choose a larger training.bucket"});
  std::string fine = dir.write("fine.yaml", "name: t\ncluster: " + kRing8 + "\ntraining:\n  model: " + model + "\n");
  rejects({"run", fine, "--set", "training.bucket=2"}, {"--set training.bucket=2", "a bucket of 2B cuts"});
}

TEST_CASE("a reference value that is not a number is a located error") {
  TempDir dir;
  rejects({"run", dir.write("ref.yaml", training("variants:\n  - name: a\n    reference: {step_ms: fast}\n"))},
          {"ref.yaml:6:26: variants[0].reference.step_ms: 'fast' is not a number"});
  rejects({"run", dir.write("ref2.yaml", training("variants:\n  - name: a\n    reference: {step_ms: [1]}\n"))},
          {"ref2.yaml:6:26:", "expected a single value"});
}

TEST_CASE("a cluster file that is not a mapping is refused before --set reaches it") {
  TempDir dir;
  rejects({"perf", "--cluster", dir.write("scalar.yaml", "hello\n"), "--set", "servers=2"},
          {"scalar.yaml:1:1: a cluster file is a YAML mapping"});
}

TEST_CASE("algo: auto without selector rules is a located error") {
  TempDir dir;
  rejects({"run", dir.write("auto.yaml", training("algo: auto\n"))}, {"auto.yaml:4:7: algo: auto needs selector rules (training.selector: FILE)"});
}

TEST_CASE("a bucket that cuts the gradients into too many buckets is refused") {
  TempDir dir;
  rejects({"run", dir.write("b.yaml", training("")), "--set", "training.bucket=1"},
          {"into more than 100000 buckets; choose a larger training.bucket"});
}

TEST_CASE("a multi-stream algorithm with HCCL buffer loops names hccl.buffer_size") {
  TempDir dir;
  rejects({"run", dir.write("loops.yaml", training("algo: dbtree\nhccl: {buffer_size: 1MiB}\n"))},
          {"dbtree runs on several streams", "raise hccl.buffer_size (HCCL_BUFFSIZE)"});
  rejects({"run", dir.write("zero.yaml", training("hccl: {buffer_size: 0}\n"))}, {"zero.yaml:4:21: hccl.buffer_size:"});
}

TEST_CASE("invalid UTF-8 is refused at load with its line and column") {
  TempDir dir;
  rejects({"run", dir.write("utf.yaml", scenario("description: \"caf\xC3\x28\"\n"))}, {"utf.yaml:6:18: not UTF-8 text"});
  rejects({"run", dir.write("nul.yaml", std::string("name: a\0b\n", 10))}, {"nul.yaml:1:8: a NUL byte"});
}

TEST_CASE("numbers in an env file cannot overflow") {
  TempDir dir;
  std::string cond = dir.write("cond.sh", "if [ \"$WORLD_SIZE\" -gt 99999999999999999999 ]; then\nexport HCCL_BUFFSIZE=1\nfi\n");
  CliResult r = cli({"perf", "--cluster", kRing8, "-b", "1MiB", "-e", "1MiB", "--env-file", cond});
  CHECK(r.status == 0); // 8 is not greater: the export is skipped
  CHECK(!contains(r.err, "HCCL_BUFFSIZE"));
  std::string big = dir.write("big.sh", "export HCCL_BUFFSIZE=99999999999999999999\n");
  rejects({"perf", "--cluster", kRing8, "--env-file", big}, {"big.sh:1: HCCL_BUFFSIZE=", "out of range"});
}

TEST_CASE("filesystem errors in paths are input errors that name the path") {
  TempDir dir;
  std::string longName = dir / std::string(300, 'a');
  rejects({"run", longName}, {"File name too long"});
  std::string file = dir.write("plain", "x");
  rejects({"run", file + "/scenario.yaml"}, {"scenario.yaml: scenario file: Not a directory"});
  rejects({"run", dir / "missing.yaml"}, {"missing.yaml: scenario file: No such file or directory"});
  if (geteuid() != 0) { // root reads anything
    std::string locked = dir.write("locked.yaml", scenario(""));
    std::filesystem::permissions(locked, std::filesystem::perms::none);
    rejects({"run", locked}, {"locked.yaml: scenario file: Permission denied"});
  }
}

TEST_CASE("simulated time past the 64-bit clock is refused up front") {
  TempDir dir;
  auto cluster = [](const std::string& hccs) { return "cluster: {devices: 8, hccs: {shape: ring, " + hccs + "}}\n"; };
  rejects({"run", dir.write("lat.yaml", "op: allreduce\nalgo: ring\nsizes: [1MiB]\n" +
                                            cluster("bandwidth: 12GB/s, latency: 9000000s"))},
          {"the simulated time would be at least", "beyond what collsim's picosecond clock holds",
           "the longest latency 104 days"});
  // The message names the link to look at, wherever its rate was set.
  rejects({"run", dir.write("slow.yaml", "op: allreduce\nalgo: ring\nsizes: [8GiB]\n" +
                                             cluster("bandwidth: 1B/s, latency: 1us"))},
          {"the simulated time would be at least", "(the slowest link: HCCS at 1 B/s)"});
  rejects({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--set", "roce.bandwidth=2B/s", "-b", "1MiB",
           "-e", "1MiB", "--algo", "hier:ring+ring"},
          {"the slowest link: RoCE at 2 B/s"});
  std::string bert = "name: t\ncluster: " + kRing8 + "\ntraining: {model: " + source("configs/models/bert-large.yaml") + "}\n";
  rejects({"run", dir.write("util.yaml", bert), "--set", "training.model.compute.utilization=1e-300"},
          {"more than collsim's clock holds in a step"});
}

TEST_CASE("an unknown algorithm in selector rules is refused at load with its line") {
  TempDir dir;
  std::string rules = dir.write("rules.yaml", "name: r\nrules:\n  - name: typo\n    algo: hier:ring+nhrr\n");
  rejects({"selector", "check", "--rules", rules, "--grid", source("tests/data/selector/small-grid.yaml")},
          {"rules.yaml:4:11: rules[0].algo: no algorithm 'hier:ring+nhrr'"});
}

TEST_CASE("duplicate YAML keys are refused") {
  TempDir dir;
  rejects({"run", dir.write("dup.yaml", "name: a\n" + scenario(""))}, {"dup.yaml:2:1: duplicate key 'name'"});
}

// Nine lines of nested aliases name 10^9 values (each list holds ten of the
// one before): refused while checking, before any reader walks them.
TEST_CASE("YAML aliases that expand past 100,000 values are refused") {
  TempDir dir;
  std::string bomb = "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i <= 8; ++i) {
    std::string prev = "*a" + std::to_string(i - 1);
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", " : "") + prev;
    bomb += "]\n";
  }
  rejects({"run", dir.write("bomb.yaml", bomb + scenario(""))}, {"bomb.yaml:", "more than 100,000 values once YAML aliases are expanded"});
}

TEST_CASE("growth factors must be finite numbers above 1") {
  TempDir dir;
  for (std::string f : {".nan", "nan", "inf", "-inf", "1"}) {
    CAPTURE(f);
    CliResult r = cli({"run", dir.write("f.yaml", scenario("", "ring", "{min: 1KiB, max: 1MiB, factor: " + f + "}"))});
    CHECK(r.status == 2);
    CHECK(contains(r.err, "f.yaml:5:"));
  }
  rejects({"perf", "--cluster", kRing8, "-f", "nan"}, {"-f must be a finite number greater than 1"});
}

TEST_CASE("command-line numbers are checked: --seed, -j, --tolerance") {
  rejects({"run", source("tests/data/small.yaml"), "--seed", "-1"}, {"--seed: '-1' is not a whole number"});
  std::string grid = source("tests/data/selector/small-grid.yaml"), rules = source("configs/selector/hccl-910b.yaml");
  rejects({"selector", "check", "--rules", rules, "--grid", grid, "-j", "0"}, {"--jobs: Value 0 not in range"});
  rejects({"selector", "check", "--rules", rules, "--grid", grid, "-j", "-3"}, {"--jobs"});
  rejects({"selector", "check", "--rules", rules, "--grid", grid, "--tolerance", "nan"}, {"--tolerance: 'nan' is not a finite"});
}

TEST_CASE("a folder or a device as an input file is named as such") {
  TempDir dir;
  rejects({"run", dir.path().string()}, {"scenario file: is a directory"});
  rejects({"run", "/dev/zero"}, {"/dev/zero: scenario file: is not a regular file"});
  rejects({"run", source("tests/data/small.yaml"), "--env-file", dir.path().string()}, {"--env-file: is a directory"});
  rejects({"run", source("tests/data/small.yaml"), "--env-file", "/dev/zero"}, {"--env-file: is not a regular file"});
}

TEST_CASE("an empty file gets a located message") {
  TempDir dir;
  rejects({"run", dir.write("empty.yaml", "")}, {"empty.yaml:1:1: the file is empty; a scenario is a YAML mapping"});
  rejects({"perf", "--cluster", dir.write("c.yaml", "\n# nothing\n")}, {"c.yaml:1:1: the file is empty"});
}

TEST_CASE("control characters from input are escaped, never echoed raw") {
  TempDir dir;
  CliResult r = cli({"run", dir.write("esc.yaml", scenario("", "\"ri\\e[31mng\""))});
  CHECK(r.status == 2);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(contains(r.err, "esc.yaml:4:7: algo: the value holds a control character"));
  CHECK(contains(r.err, "ri\\x1B[31mng"));
  CliResult path = cli({"run", dir / "bad\x1b]0;title\x07.yaml"});
  CHECK(path.status == 2);
  CHECK(path.err.find('\x1b') == std::string::npos);
  CHECK(path.err.find('\x07') == std::string::npos);
}

TEST_CASE("an error never quotes a file that is not a collsim file") {
  TempDir dir;
  std::string secret = dir.write("shadow", "root:$6$secretHash:19000:0:99999:7:::\nuser:x:1000\n");
  CliResult r = cli({"run", source("tests/data/small.yaml"), "--set", "cluster=" + secret});
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(!contains(r.err, "secretHash"));
  CHECK(contains(r.err, secret + ":1:1: cluster.?: a line that is not a collsim key"));
}

TEST_CASE("a --set error names the option, not the scenario file") {
  rejects({"run", source("tests/data/small.yaml"), "--set", "simulation.segment=lots"},
          {"--set simulation.segment=lots: simulation.segment:"});
  rejects({"run", source("tests/data/small.yaml"), "--set", "nokey=1"}, {"--set nokey=1: nokey: unknown key 'nokey'"});
}

// small.yaml's cluster says hccs:; a user who types the section's general
// name (scale_up) reaches it, and is answered in their own words.
TEST_CASE("a mistyped key gets the nearest known one, in the spelling the user typed") {
  rejects({"run", source("tests/data/small.yaml"), "--set", "cluster.scale_up.bandwith=3GB/s"},
          {"--set cluster.scale_up.bandwith=3GB/s: cluster.scale_up.bandwith: unknown key 'bandwith'; did you mean "
           "'bandwidth'?"});
  TempDir dir;
  std::string cluster = dir.write("c.yaml", "name: c\nservers: 1\ndevices: 8\nscale_up: {shape: ring, bandwidth: "
                                            "1GB/s, latncy: 1us}\n");
  rejects({"perf", "--cluster", cluster, "-e", "1MiB"},
          {"c.yaml:4:43: scale_up.latncy: unknown key 'latncy'; did you mean 'latency'?"});
  // Nothing near: no guess.
  rejects({"run", source("tests/data/small.yaml"), "--set", "cluster.hccs.xyzzy=1"}, {"unknown key 'xyzzy' (expected"});
}

TEST_CASE("work too large is refused in a second with its estimate") {
  TempDir dir;
  rejects({"run", dir.write("huge.yaml", "op: allreduce\nalgo: ring\nsizes: [1MiB]\ncluster: {servers: 1048576, devices: "
                                         "1048576, hccs: {shape: ring, bandwidth: 1GB/s, latency: 1us}, roce: "
                                         "{bandwidth: 100Gbps, latency: 2us}}\n")},
          {"huge.yaml:4:10: cluster: 1048576 servers x 1048576 devices", "at most 262144"});
  rejects({"run", dir.write("mesh.yaml", "op: allreduce\nalgo: mesh\nsizes: [1MiB]\ncluster: {devices: 4096, hccs: "
                                         "{shape: mesh, bandwidth: 1GB/s, latency: 1us}}\n")},
          {"mesh.yaml:4:32: cluster.hccs: a full mesh of 4096 devices per server has 8386560 HCCS links"});
  rejects({"run", dir.write("factor.yaml", scenario("", "ring", "{min: 1KiB, max: 1GiB, factor: 1.0000001}"))},
          {"factor.yaml:5:8: sizes: the range makes about 138629443 sizes; at most 10000"});
  std::string many = "[1KiB";
  for (int i = 0; i < 20000; ++i) many += ",1KiB";
  rejects({"run", dir.write("many.yaml", scenario("", "ring", many + "]"))}, {"many.yaml:5:8: sizes: the list has 20001 sizes"});
  // 8 ranks x 14 steps x 2^27 one-byte segments, each an arrival and a
  // wake-up of the link it waited for: 3.0e10 events.
  rejects({"perf", "--cluster", kRing8, "--segment", "1", "-b", "1GiB", "-e", "1GiB"},
          {"allreduce ring: about 3.0e+10 events (~", "raise --max-events or shrink the study"});
  rejects({"run", source("scenarios/seed-8card-tuning.yaml"), "--set", "sweep={training.accumulation: {from: 1, to: 100000000000}}"},
          {"sweep.training.accumulation: the range has about 100000000000 values"});
}

TEST_CASE("--max-events and --max-memory move the limit - --estimate prints it") {
  rejects({"run", source("tests/data/small.yaml"), "--max-events", "10"}, {"the limit is 10 events"});
  rejects({"run", source("tests/data/small.yaml"), "--max-memory", "1KiB"}, {"the limit is 0 MiB: raise --max-memory"});
  rejects({"run", source("tests/data/small.yaml"), "--max-memory", "lots"}, {"--max-memory: "});
  CliResult e = cli({"run", source("tests/data/small.yaml"), "--estimate"});
  CHECK(e.status == 0);
  CHECK(e.out.rfind("small-ring: about ", 0) == 0);
}

// Estimating is O(ranks) per algorithm and size: beyond about 2^24
// rank-estimates an algorithm's sizes are estimated on an even grid and
// those between interpolated, exact for work that grows as a power of size.
TEST_CASE("many sizes on many ranks are estimated on a grid and interpolated between") {
  using namespace collsim;
  CHECK(sizesToEstimate(28, 4096, 88) == 28);      // 2^24 / (4096 x 88) = 46
  CHECK(sizesToEstimate(28, 8192, 88) == 23);      // 2^24 / (8192 x 88) = 23.3
  CHECK(sizesToEstimate(28, 262144, 88) == 2);     // the smallest and the largest
  CHECK(sizesToEstimate(28, 262144, 1) == 28);     // one algorithm: 64 affordable
  CHECK(sizesToEstimate(1, 262144, 88) == 1);
  WorkEstimate low, high;
  low.events = 100, low.simulatedSeconds = 1e-3, low.memoryBytes = 1e6, low.lanes = 8;
  high.events = 1600, high.simulatedSeconds = 16e-3, high.memoryBytes = 1e6, high.lanes = 8;
  // events ~ bytes^2 between 1 and 4 MiB: at 2 MiB, 100 x 2^2.
  WorkEstimate mid = interpolateEstimate(2 << 20, 1 << 20, low, 4 << 20, high);
  CHECK(mid.events == doctest::Approx(400));
  CHECK(mid.simulatedSeconds == doctest::Approx(4e-3));
  CHECK(mid.memoryBytes == doctest::Approx(1e6));
  CHECK(mid.lanes == 8);
  low.events = 0; // nothing at the small end: linear in log size
  CHECK(interpolateEstimate(2 << 20, 1 << 20, low, 4 << 20, high).events == doctest::Approx(800));
}

// A refusal needs only to know that the work passes the limit: a study of
// many runs stops adding up its estimates at the first run past it and says
// "at least"; --estimate still adds up every run ("about").
TEST_CASE("a study past the limit is refused at the first run past it, and says at least") {
  const std::vector<std::string> perf = {"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "--algo", "all",
                                         "-b", "1MiB", "-e", "64MiB"};
  auto eventsIn = [](const std::string& text, const std::string& after) {
    std::size_t at = text.find(after);
    REQUIRE(at != std::string::npos);
    return std::stod(text.substr(at + after.size()));
  };
  std::vector<std::string> args = perf;
  args.insert(args.end(), {"--max-events", "1000"});
  CliResult refused = cli(args);
  CHECK(refused.status == 2);
  CHECK(contains(refused.err, "the limit is 1000 events"));
  args = perf;
  args.push_back("--estimate");
  CliResult whole = cli(args);
  CHECK(whole.status == 0);
  const double partial = eventsIn(refused.err, ": at least "), all = eventsIn(whole.out, ": about ");
  CHECK(partial > 1000);
  CHECK(partial * 10 < all); // one run of 88 algorithms x 7 sizes, not all of them
}

TEST_CASE("PFC settings a switch buffer cannot hold are refused at load, naming both values") {
  const std::string atlas = source("configs/clusters/atlas-2x8.yaml");
  // XOFF 512 KB plus a link's headroom (two 1 us latencies at 100 Gbps, two
  // 4194-byte frames and a pause frame: 33,452 B) above a 200 KB buffer.
  rejects({"perf", "--cluster", atlas, "--set", "roce.pfc=on", "--set", "roce.buffer=200KB"},
          {"roce.pfc: PFC xoff 500KiB plus the headroom of a link into", "(32.67KiB,", "buffer of 195.3KiB per port"});
  // A low XOFF, but the headroom of every link into the switch fills the buffer.
  rejects({"perf", "--cluster", atlas, "--set", "roce.pfc={xoff: 20KB, xon: 10KB}", "--set", "roce.buffer=100KB"},
          {"roce.pfc: the ", "links into", "of PFC headroom together", "not less than its 97.66KiB buffer per port"});
}

TEST_CASE("an error in an item of a --set list names the --set, not the file") {
  CliResult r = cli({"run", "--set", "sizes=[1MiB,foo]"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "collsim: error: --set sizes=[1MiB,foo]: sizes[1]: 'foo' is not a size"));
}

TEST_CASE("DCQCN presets and parameters: the old name production and values out of range are located errors") {
  TempDir dir;
  const std::string head = "name: c\nservers: 2\ndevices: 1\nhccs: {shape: ring, bandwidth: 12GB/s, latency: 1us}\n";
  rejects({"perf", "--cluster",
           dir.write("old.yaml", head + "roce:\n  bandwidth: 100Gbps\n  latency: 1us\n  dcqcn: production\n")},
          {"old.yaml:8:10:", "'production' is now 'connectx'"});
  rejects({"perf", "--cluster", dir.write("unknown.yaml", head + "roce: {bandwidth: 100Gbps, latency: 1us, dcqcn: {preset: fast}}\n")},
          {"unknown.yaml:5:", "unknown DCQCN preset 'fast' (expected one of: connectx, paper, off)"});
  rejects({"perf", "--cluster", dir.write("alpha.yaml", head + "roce: {bandwidth: 100Gbps, latency: 1us, dcqcn: {initial_alpha: 2}}\n")},
          {"alpha.yaml:5:", "initial_alpha is in (0, 1]"});
  rejects({"perf", "--cluster", dir.write("clamp.yaml", head + "roce: {bandwidth: 100Gbps, latency: 1us, dcqcn: {clamp_target: maybe}}\n")},
          {"clamp.yaml:5:"});
  CliResult ok = cli({"perf", "--cluster",
                      dir.write("ok.yaml", head + "roce: {bandwidth: 100Gbps, latency: 1us, dcqcn: {preset: connectx, "
                                                  "decrease_period: 0us, clamp_target: true}}\n"),
                      "-b", "1MiB", "-e", "1MiB"});
  CHECK(ok.status == 0);
}

// A sweep or variant key is applied long after the study is read: its errors
// still name the study's line, never the file the key reaches into.
TEST_CASE("a swept or varied key's error names the study's own line") {
  TempDir dir;
  rejects({"run", dir.write("typo.yaml", scenario("sweep:\n  cluster.bandwith: [1, 2]\n"))},
          {"typo.yaml:7:21: sweep cluster.bandwith=1", "unknown key 'bandwith'"});
  rejects({"run", dir.write("tab.yaml", scenario("sweep:\n  \"cluster.servers\\t\": [1, 2]\n"))},
          {"tab.yaml:7:24: sweep key 'cluster.servers\\x09' holds a space or a control character"});
  rejects({"run", dir.write("variant.yaml", training("variants:\n  - name: a\n    set: {training.buckt: 1MB}\n"))},
          {"variant.yaml:6:27: variant a: training.buckt=1MB", "did you mean 'bucket'"});
  // Not the cluster file the key reaches into.
  CliResult r = cli({"run", dir.write("tab2.yaml", scenario("sweep:\n  \"cluster.servers\\t\": [1, 2]\n"))});
  CHECK_FALSE(contains(r.err, "hccs-ring-8.yaml"));
}

// Found by the fuzz target: a sweep into a cluster the study does not have
// asked yaml-cpp about a node that is not there (exit 2, but no location);
// the cluster it makes is the sweep's, and its errors say so.
TEST_CASE("a sweep into a missing cluster is a located error") {
  TempDir dir;
  rejects({"run", dir.write("nocluster.yaml", "name: t\nop: allreduce\nalgo: ring\nsizes: [1MiB]\nsweep:\n  cluster.servers: [2]\n")},
          {"nocluster.yaml:6:20: sweep cluster.servers=2: cluster: missing required key"});
  CliResult r = cli({"run", dir.write("nocluster2.yaml", "name: t\nop: allreduce\nalgo: ring\nsizes: [1MiB]\nsweep:\n  cluster.servers: [2]\n")});
  CHECK_FALSE(contains(r.err, "invalid node"));
}

// yaml-cpp holds about 100 bytes per byte it reads, 240 of a flood of '{',
// and stops deep nesting with "bad file": the text is looked at first.
TEST_CASE("deep nesting and floods of values are refused before the YAML reader holds them") {
  TempDir dir;
  rejects({"run", dir.write("deep.yaml", "a: " + std::string(300, '['))}, {"deep.yaml:1:68: nested more than 64 levels deep"});
  rejects({"run", dir.write("flood.yaml", std::string(8 << 20, '{'))}, {"flood.yaml:1:65: nested more than 64 levels deep"});
  std::string values = "name: t\nsizes: [";
  for (int i = 0; i < 100'001; ++i) values += "1, ";
  rejects({"run", dir.write("values.yaml", values + "1]\n")}, {"values.yaml:2:", "more than 100,000 values"});
  std::string lines = "name: t\n";
  for (int i = 0; i < 100'001; ++i) lines += "k" + std::to_string(i) + ": 1\n";
  rejects({"run", dir.write("lines.yaml", lines)}, {"lines.yaml:100001:", "more than 100,000 values"});
  // Brackets and commas in quotes and comments are text, not structure.
  rejects({"run", dir.write("quoted.yaml", "name: '" + std::string(100, '[') + "' # " + std::string(100, '{') +
                                               "\nnot_a_key: \"[[,,]]\"\n")},
          {"quoted.yaml:2:1: not_a_key: unknown key"});
  // Block nesting past yaml-cpp's own guard: said as nesting, not "bad file".
  std::string block = "a:\n";
  for (int i = 0; i < 1100; ++i) block += std::string(std::size_t(i + 1), ' ') + "- \n";
  CliResult r = cli({"run", dir.write("block.yaml", block)});
  CHECK(r.status == 2);
  CHECK_FALSE(contains(r.err, "bad file"));
}

// A sweep's key that reaches into the cluster file is located at the sweep,
// and a key of letters beyond ASCII is shown, not hidden as '?'.
TEST_CASE("a swept key that is no collsim key is located at the sweep and shown") {
  TempDir dir;
  const std::string study = dir.write("s.yaml", "name: x\ncluster: " + source("configs/clusters/atlas-2x8.yaml") +
                                                    "\nop: allreduce\nalgo: ring\nsizes: [1MiB]\nsweep:\n"
                                                    "  \"cluster.fabric.t\xc3\xa9pe\": [switch]\n");
  rejects({"run", study}, {"s.yaml:7:", ": sweep cluster.fabric.t\xc3\xa9pe=switch",
                           "cluster.fabric.t\xc3\xa9pe: unknown key 't\xc3\xa9pe'; did you mean 'type'?"});
}
