// The command line, called in-process: outputs, formats and bad input.
#include <doctest/doctest.h>

#include "relative_error.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/cli/cli.h"
#include "sim/cli/suggest.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::testing;

TEST_CASE("collsim run without a scenario prints the embedded default as a table") {
  CliResult r = cli({"run"});
  CHECK(r.status == 0);
  CHECK(contains(r.out, "seed-8card-ring-allreduce"));
  CHECK(contains(r.out, "busbw_GB/s"));
  CHECK(contains(r.out, "1360000000")); // BERT-Large's fp32 gradient
}

TEST_CASE("collsim --version names the version and the git commit it was built from") {
  CliResult r = cli({"--version"});
  CHECK(r.status == 0);
  CHECK(r.out.rfind(std::string("collsim ") + COLLSIM_VERSION_STRING + " (git ", 0) == 0);
  CHECK(r.out.find(")") != std::string::npos);
}

TEST_CASE("perf's --algo takes a comma list or repeats, and bad names list the valid ones") {
  auto algorithms = [](const CliResult& r) {
    std::vector<std::string> names;
    nlohmann::json doc = nlohmann::json::parse(r.out); // kept: the loop walks into it
    for (const auto& x : doc["results"]) names.push_back(x["algorithm"]);
    return names;
  };
  std::vector<std::string> base{"perf", "--cluster", source("configs/clusters/hccs-ring-8.yaml"), "-b", "1MiB", "-e",
                                "1MiB", "--format", "json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  };
  CHECK(algorithms(with({"--algo", "ring,rhd"})) == std::vector<std::string>{"ring", "rhd"});
  CHECK(algorithms(with({"--algo", "rhd", "--algo", "ring"})) == std::vector<std::string>{"rhd", "ring"});
  CliResult bad = with({"--dtype", "float33"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("(expected one of: int8, int32, float16, bfloat16, float32, float64)") != std::string::npos);
  bad = with({"--algo", "ring,rung"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("no algorithm 'rung' for allreduce; did you mean 'ring'? (available: ring, rhd") != std::string::npos);
}

TEST_CASE("perf on hccs-ring-8 matches the closed form at every size (json)") {
  CliResult r = cli({"perf", "--cluster", source("configs/clusters/hccs-ring-8.yaml"), "--op", "allreduce", "--algo",
                     "ring", "-b", "1KiB", "-e", "1GiB", "-f", "4", "--format", "json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  auto& results = doc["results"];
  REQUIRE(results.size() == 11); // 1 KiB, 4 KiB, ..., 1 GiB
  for (const auto& row : results) {
    double n = row["bytes"].get<double>(), p = row["ranks"].get<double>();
    double closed_us = 2 * (p - 1) * (1.0 + n / (p * 12e9) * 1e6);
    CAPTURE(n);
    CHECK_WITHIN(row["time_us"].get<double>(), closed_us, 0.01);
    CHECK(row["op"] == "allreduce");
    CHECK(row["algorithm"] == "ring");
    // busbw = algbw x 2(p-1)/p
    CHECK_WITHIN(row["busbw_GBps"].get<double>(), row["algbw_GBps"].get<double>() * 2 * (p - 1) / p, 1e-9);
  }
}

TEST_CASE("csv and md formats carry the same rows") {
  auto cells = [](const std::string& line, char sep) {
    std::vector<std::string> out;
    std::string cell;
    std::istringstream in(line);
    while (std::getline(in, cell, sep)) {
      cell.erase(0, cell.find_first_not_of(' '));
      cell.erase(cell.find_last_not_of(' ') + 1);
      out.push_back(cell);
    }
    return out;
  };
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  };
  CliResult csv = cli({"run", source("tests/data/small.yaml"), "--format", "csv"});
  REQUIRE(csv.status == 0);
  CHECK(csv.err.empty());
  std::vector<std::string> rows = lines(afterProvenance(csv.out));
  REQUIRE(rows.size() == 1 + 3); // 1 KiB, 32 KiB, 1 MiB
  CHECK(rows[0] == "op,algorithm,ranks,bytes,count,dtype,time_us,algbw_GBps,busbw_GBps,events,messages,fastest");
  CliResult md = cli({"run", source("tests/data/small.yaml"), "--format", "md"});
  REQUIRE(md.status == 0);
  std::vector<std::string> table;
  for (const auto& l : lines(md.out))
    if (l.rfind("| allreduce", 0) == 0) table.push_back(l);
  REQUIRE(table.size() == 3);
  for (std::size_t i = 0; i < table.size(); ++i) {
    std::vector<std::string> c = cells(rows[i + 1], ','), m = cells(table[i], '|'); // m[0] is before the first bar
    CAPTURE(rows[i + 1]);
    CAPTURE(table[i]);
    REQUIRE(m.size() == 11);
    CHECK(m[1] == c[0]); // op
    CHECK(m[2] == c[1]); // algorithm
    CHECK(m[3] == c[2]); // ranks
    CHECK(m[5] == c[3]); // bytes
    CHECK(m[6] == c[4]); // count
    CHECK(m[7] == c[5]); // dtype
    // The table rounds to 3 decimals what CSV gives to 6.
    CHECK(std::stod(m[8]) == doctest::Approx(std::stod(c[6])).epsilon(1e-3));
    CHECK(std::stod(m[10]) == doctest::Approx(std::stod(c[8])).epsilon(1e-2));
  }
  // A format that does not exist is refused by name.
  CliResult bad = cli({"run", source("tests/data/small.yaml"), "--format", "xml"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "--format"));
  CHECK(contains(bad.err, "xml"));
}

TEST_CASE("--set overrides a key, also inside a cluster file") {
  auto time = [](const CliResult& r) { return nlohmann::json::parse(r.out)["results"][0]["time_us"].get<double>(); };
  CliResult base = cli({"run", source("tests/data/small.yaml"), "--format", "json", "--set", "sizes=[64MiB]"});
  CliResult fast = cli({"run", source("tests/data/small.yaml"), "--format", "json", "--set", "sizes=[64MiB]", "--set",
                        "cluster.hccs.bandwidth=24GB/s"});
  REQUIRE(base.status == 0);
  REQUIRE(fast.status == 0);
  CHECK(time(fast) < 0.52 * time(base)); // bandwidth-bound: twice the bandwidth, about half the time
  CliResult bad = cli({"run", source("tests/data/small.yaml"), "--set", "cluster.hccs.bandwidth=fast"});
  CHECK(bad.status == 2);
  CHECK(contains(bad.err, "--set cluster.hccs.bandwidth=fast"));
}

TEST_CASE("--trace writes Chrome trace-event JSON with rank and link tracks") {
  TempDir dir;
  std::filesystem::path path = dir / "trace.json";
  CliResult r = cli({"run", source("tests/data/small.yaml"), "--trace", path.string(), "--set", "sizes=[1MiB]"});
  REQUIRE(r.status == 0);
  std::ifstream in(path);
  auto doc = nlohmann::json::parse(in);
  int steps = 0, busy = 0, linkTracks = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "X" && e["name"] == "busy") ++busy;
    else if (e["ph"] == "X") ++steps;
    if (e["ph"] == "M" && contains(e["args"]["name"].get<std::string>(), "link ")) ++linkTracks;
  }
  CHECK(steps == 8 * 14); // 8 ranks x 2(p-1) steps
  CHECK(linkTracks == 8); // one direction of each ring link carries data
  CHECK(busy >= 8);
}

TEST_CASE("bad input: exit status 2 and a message with file, line and problem") {
  struct Case {
    const char* file;
    const char* where;
    const char* what;
  };
  const Case cases[] = {
      {"syntax_error.yaml", "syntax_error.yaml:4:", "YAML syntax error"},
      {"unknown_key.yaml", "unknown_key.yaml:6:1", "unknown key 'segmnet'"},
      {"bad_unit.yaml", "bad_unit.yaml:6:16", "unknown bandwidth unit"},
      {"zero_bandwidth.yaml", "zero_bandwidth.yaml:6:16", "bandwidth must be positive"},
      {"disconnected.yaml", "disconnected.yaml:3:3", "disconnected"},
      {"unknown_algo.yaml", "unknown_algo.yaml:4:7", "no algorithm 'ringg'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    TempDir dir;
    std::filesystem::path out = dir / "out.txt";
    CliResult r = cli({"run", source(std::string("tests/data/") + c.file), "--out", out.string()});
    CHECK(r.status == 2);
    CHECK(contains(r.err, c.where));
    CHECK(contains(r.err, c.what));
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(out)); // no partial output
  }
}

TEST_CASE("bad command-line values are errors, never guesses") {
  std::string ring = source("configs/clusters/hccs-ring-8.yaml");
  CHECK(cli({"perf", "--cluster", ring, "-b", "1KB/s"}).status == 2);
  CHECK(cli({"perf", "--cluster", ring, "--algo", "trie"}).status == 2);
  CHECK(cli({"perf", "--cluster", ring, "--op", "scatter"}).status == 2);
  CHECK(cli({"perf", "--cluster", ring, "--format", "xml"}).status == 2);
  CHECK(cli({"perf", "--cluster", "/nonexistent.yaml"}).status == 2);
  CHECK(cli({"run", "/nonexistent.yaml"}).status == 2);
  CHECK(cli({"frobnicate"}).status == 2);
  CliResult help = cli({"--help"});
  CHECK(help.status == 0);
  CHECK(contains(help.out, "perf"));
}

TEST_CASE("collsim verify runs real data through the threads transport") {
  CliResult ok = cli({"verify", "--transport", "threads", "--op", "allreduce", "--algo", "rhd", "--ranks", "7", "--bytes",
                      "1000003"});
  CHECK(ok.status == 0);
  CHECK(contains(ok.out, "OK: 0 wrong elements"));
  CHECK(contains(ok.out, "1000003 rounded down"));
  CliResult json = cli({"verify", "--op", "alltoall", "--algo", "ring", "--ranks", "5", "--bytes", "4000", "--format",
                        "json"});
  REQUIRE(json.status == 0);
  auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["ok"] == true);
  CHECK(doc["messages"].get<int>() > 0);
  CHECK(cli({"verify", "--op", "allreduce", "--algo", "ring", "--dtype", "float16"}).status == 2);
  CHECK(cli({"verify", "--transport", "carrier-pigeon"}).status == 2);
}

TEST_CASE("collsim algorithms lists every registry entry with its cost") {
  CliResult r = cli({"algorithms", "--format", "json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["algorithms"].size() >= 20);
  for (const auto& a : doc["algorithms"]) CHECK(!a["cost"].get<std::string>().empty());
}

// Flat NVLS over two servers waited for ever at each NVSwitch for the other
// server's contributions (a deadlock): it is refused, with the hierarchies
// that run it inside the servers.
TEST_CASE("nvls over several servers is refused with the hierarchies that run it") {
  CliResult r = cli({"perf", "--cluster", source("configs/clusters/h100-2x8-ib400.yaml"), "--algo", "nvls", "-b", "1MiB",
                     "-e", "1MiB"});
  CHECK(r.status == 2);
  CHECK(contains(r.err, "nvls reduces in a server's switch, among that server's devices; on 2 servers run it as a "
                        "hierarchy's level inside the servers (hier:nvls+ring, or hierpipe:nvls+tree"));
  CHECK(cli({"perf", "--cluster", source("configs/clusters/h100-2x8-ib400.yaml"), "--set", "servers=1", "--algo",
             "nvls", "-b", "1MiB", "-e", "1MiB"})
            .status == 0);
}

TEST_CASE("algorithms --cluster lists what runs there, hierarchies included - --algo all runs them, flat not") {
  const std::string two = source("configs/clusters/atlas-2x8.yaml"), one = source("configs/clusters/hccs-ring-8.yaml");
  CliResult r = cli({"algorithms", "--cluster", two, "--op", "allreduce", "--format", "json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> hier = doc["hierarchical"]["allreduce"].get<std::vector<std::string>>();
  CHECK(std::find(hier.begin(), hier.end(), "hier:ring+rhd") != hier.end());
  CHECK(std::find(hier.begin(), hier.end(), "hierpipe:mesh+nhr") != hier.end());
  // nvls needs a switch that reduces: atlas-2x8 has none, so no part of a hierarchy is nvls.
  for (const auto& name : hier) CHECK(name.find("nvls") == std::string::npos);
  CliResult single = cli({"algorithms", "--cluster", one, "--op", "allreduce", "--format", "json"});
  CHECK(nlohmann::json::parse(single.out)["hierarchical"].empty());

  // --algo all on two servers: the flat ones and every listed hierarchy, each run.
  CliResult all = cli({"perf", "--cluster", two, "--algo", "all", "-b", "64KiB", "-e", "64KiB", "--format", "csv"});
  REQUIRE(all.status == 0);
  Csv rows = Csv::parse(all.out);
  CliResult flat = cli({"perf", "--cluster", two, "--algo", "flat", "-b", "64KiB", "-e", "64KiB", "--format", "csv"});
  REQUIRE(flat.status == 0);
  std::size_t flatCount = Csv::parse(flat.out).rows.size();
  CHECK(rows.rows.size() == flatCount + hier.size());
  CHECK(rows.at(flatCount, "algorithm") == hier.front());
  for (std::size_t i = 0; i < rows.rows.size(); ++i) CHECK(std::stod(rows.at(i, "time_us")) > 0);
  // One server: all is the flat list.
  CliResult oneAll = cli({"perf", "--cluster", one, "--algo", "all", "-b", "64KiB", "-e", "64KiB", "--format", "csv"});
  CliResult oneFlat = cli({"perf", "--cluster", one, "--algo", "flat", "-b", "64KiB", "-e", "64KiB", "--format", "csv"});
  CHECK(afterProvenance(oneAll.out) == afterProvenance(oneFlat.out));
}

TEST_CASE("--algo all compares algorithms per size and marks the fastest") {
  CliResult r = cli({"perf", "--cluster", source("configs/clusters/hccs-mesh-8.yaml"), "--algo", "all", "-b", "1MiB",
                     "-e", "1MiB", "--format", "json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  int fastest = 0;
  double best = 1e300;
  for (const auto& row : doc["results"]) best = std::min(best, row["time_us"].get<double>());
  for (const auto& row : doc["results"])
    if (row["fastest"] == true) {
      ++fastest;
      CHECK(row["time_us"].get<double>() == best);
      CHECK(row["algorithm"] == "mesh"); // one step each way over 7 links at once
    }
  CHECK(fastest == 1);
  CliResult table = cli({"perf", "--cluster", source("configs/clusters/hccs-mesh-8.yaml"), "--algo", "all", "-b", "1MiB",
                         "-e", "1MiB"});
  CHECK(contains(table.out, "fastest"));
}

TEST_CASE("results say when a setting does nothing: jitter at fast fidelity, sizes below one element") {
  CliResult jitter = cli({"run", source("scenarios/roce-tail-jitter.yaml"), "--set", "simulation.fidelity=fast", "--set",
                          "sizes=[64KiB]", "--set", "algo=ring"});
  REQUIRE(jitter.status == 0);
  CHECK(contains(jitter.out, "# note: the cluster's jitter acts per packet, at packet level only"));
  CliResult packet = cli({"run", source("scenarios/roce-tail-jitter.yaml"), "--set", "sizes=[64KiB]", "--set", "algo=ring"});
  CHECK(!contains(packet.out, "jitter acts per packet")); // at packet level it acts
  CliResult tiny = cli({"perf", "--cluster", source("configs/clusters/hccs-ring-8.yaml"), "-b", "2", "-e", "2"});
  CHECK(contains(tiny.out, "a size below one element moves no data"));
  CliResult plain = cli({"perf", "--cluster", source("configs/clusters/hccs-ring-8.yaml"), "-b", "4", "-e", "4"});
  CHECK(!contains(plain.out, "# note:"));
}

TEST_CASE("provenance stays one line whatever a value holds, and --out and --trace need two files") {
  CliResult r = cli({"run", "--set", "sizes=[1MiB,\n2MiB]"});
  REQUIRE(r.status == 0);
  std::string first = r.out.substr(0, r.out.find('\n'));
  CHECK(first == "# collsim " COLLSIM_VERSION_STRING ": collsim run --set $'sizes=[1MiB,\\n2MiB]'");
  CHECK(contains(r.out.substr(r.out.find('\n') + 1, 30), "# collsim run:"));
  CliResult md = cli({"run", "--format", "md", "--set", "name=a-->b"});
  CHECK(contains(md.out.substr(0, md.out.find('\n')), "'name=a-- >b' -->"));
  TempDir dir;
  CliResult same = cli({"run", "--out", dir / "x.json", "--trace", dir / "./x.json"});
  CHECK(same.status == 2);
  CHECK(contains(same.err, "the same file as --out"));
  CHECK(!std::filesystem::exists(dir / "x.json"));
}

TEST_CASE("one option vocabulary: a typo gets the nearest name, every result command takes --out") {
  using collsim::closestName;
  CHECK(closestName("--minbyte", {"--min-bytes", "--max-bytes", "--format"}) == "--min-bytes");
  CHECK(closestName("--xyzzy", {"--min-bytes", "--format"}).empty());
  CHECK(closestName("chek", {"check", "derive"}) == "check");
  auto suggests = [](std::vector<std::string> args, const std::string& name) {
    CliResult r = cli(std::move(args));
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, "did you mean " + name + " "));
  };
  const std::string ring = source("configs/clusters/hccs-ring-8.yaml");
  suggests({"perf", "--cluster", ring, "--minbyte", "1K"}, "--min-bytes");
  suggests({"perff"}, "perf");
  suggests({"selector", "chek"}, "check");
  suggests({"compare", "--clustr", ring, "log.txt"}, "--cluster");
  CHECK(!contains(cli({"run", "--xyzzy"}).err, "did you mean"));
  // nccl-tests' spellings stay: -b/--minbytes and --min-bytes are one option.
  CHECK(cli({"perf", "--cluster", ring, "--min-bytes", "1MiB", "--max-bytes", "1MiB", "--step-factor", "2"}).status == 0);
  CHECK(cli({"perf", "--cluster", ring, "--minbytes", "1MiB", "--maxbytes", "1MiB"}).status == 0);
  // One --format set per kind of output, declared once: every command lists
  // its set in --help and refuses another value with the nearest one, before
  // it reads or runs anything.
  struct FormatCase {
    std::vector<std::string> command;
    std::string set;
  };
  for (const FormatCase& c : std::vector<FormatCase>{{{"run"}, "{table,json,csv,md}"},
                                                     {{"perf"}, "{table,json,csv,md}"},
                                                     {{"hccl-env"}, "{table,json,csv,md}"},
                                                     {{"compare"}, "{table,json,csv}"},
                                                     {{"algorithms"}, "{table,json}"},
                                                     {{"calibrate"}, "{table,json}"},
                                                     {{"select"}, "{table,json}"},
                                                     {{"verify"}, "{table,json}"},
                                                     {{"profile"}, "{table,json}"},
                                                     {{"keys"}, "{table,json,md}"},
                                                     {{"topology"}, "{table,json,dot}"},
                                                     {{"selector", "check"}, "{table,json,csv,md,junit}"}}) {
    CAPTURE(c.command.front());
    std::vector<std::string> help = c.command, typo = c.command;
    help.push_back("--help");
    CHECK(contains(cli(help).out, "--format TEXT:" + c.set));
    typo.insert(typo.end(), {"--format", "jsn"});
    CliResult r = cli(typo);
    CHECK(r.status == 2);
    CHECK(contains(r.err, "--format: unknown format 'jsn'; did you mean 'json'?"));
  }
  // plan runs many steps: it offers no --trace.
  CHECK(!contains(cli({"plan", "--help"}).out, "--trace"));

  TempDir dir;
  // The file holds what standard output would (the provenance line names
  // the command, --out included).
  auto results = [](const std::string& text) { return text.rfind("# collsim ", 0) == 0 ? text.substr(text.find('\n')) : text; };
  auto writes = [&](std::vector<std::string> args, const std::string& name) {
    CliResult printed = cli(args);
    REQUIRE(printed.status == 0);
    std::string path = dir / name;
    args.push_back("--out");
    args.push_back(path);
    CliResult r = cli(args);
    CAPTURE(r.err);
    CHECK(r.status == 0);
    CHECK(r.out.empty());
    CHECK(results(slurp(path)) == results(printed.out));
  };
  writes({"topology", "--cluster", ring}, "topology.txt");
  writes({"select", "--cluster", ring, "--bytes", "1MiB"}, "select.txt");
  writes({"algorithms", "--op", "broadcast"}, "algorithms.txt");
  writes({"hccl-env", "--list", "--format", "csv"}, "hccl-env.csv");
  writes({"compare", source("tests/data/measured/v100-1x8-cubemesh-nccl.txt"), "--cluster",
          source("configs/clusters/v100-cubemesh-8.yaml")},
         "compare.txt");
  CHECK(contains(cli({"topology"}).err, "topology --cluster FILE"));
  CHECK(cli({"topology", ring, "--cluster", ring}).status == 2); // one or the other
}

TEST_CASE("compare and calibrate show a progress line with the time left on a terminal, and nothing else changes") {
  auto run = [](std::vector<std::string> args, bool progress) {
    args.insert(args.begin(), "collsim");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    int status = runCli(int(argv.size()), argv.data(), {out, err, progress});
    return CliResult{status, out.str(), err.str()};
  };
  const std::string log = source("tests/data/measured/v100-1x8-cubemesh-nccl.txt");
  const std::string cluster = source("configs/clusters/v100-cubemesh-8.yaml");
  std::vector<std::string> compare = {"compare", log, "--cluster", cluster};
  CliResult quiet = run(compare, false), shown = run(compare, true);
  REQUIRE(shown.status == 0);
  CHECK(shown.out == quiet.out);
  CHECK(!contains(quiet.err, "sizes simulated"));
  // The log's sizes from 64 KiB (compare's default --min-bytes): 12 of them.
  CHECK(contains(shown.err, "] 12/12 sizes simulated, "));
  std::vector<std::string> calibrate = {"calibrate", log, "--cluster", cluster, "--fit", "launch"};
  quiet = run(calibrate, false), shown = run(calibrate, true);
  REQUIRE(shown.status == 0);
  CHECK(afterProvenance(shown.out) == afterProvenance(quiet.out));
  CHECK(contains(shown.err, " % of the fit (searching), "));
  // The last stage ends the line full: every fitted figure checked against its prior.
  CHECK(contains(shown.err, "[####################] 100 % of the fit (which figures the curves determine)"));
  CHECK(!contains(quiet.err, "of the fit"));
  // Every fitted figure carries its unit.
  CHECK(contains(quiet.out, "#  parameter  value  unit  range         determined\n   launch     7.234  us    1.000-20.000  by the curves\n"));
  calibrate.insert(calibrate.end(), {"--format", "json"});
  auto json = nlohmann::json::parse(run(calibrate, false).out);
  CHECK(json.at("fitted_units").at("launch") == "us");
}

// calibrate writes two things: its report, which --out takes as for every
// command, and the calibrated YAML, which --write-cluster takes (training
// runs: --write-device). An --out naming a .yaml file alone is the old
// spelling, when --out was the YAML: it still is, and a note says so.
TEST_CASE("calibrate: --out is the report, --write-cluster the YAML, and --out FILE.yaml keeps its old meaning") {
  TempDir dir;
  const std::string log = source("tests/data/measured/v100-1x8-cubemesh-nccl.txt");
  const std::string cluster = source("configs/clusters/v100-cubemesh-8.yaml");
  const std::vector<std::string> calibrate = {"calibrate", log, "--cluster", cluster, "--fit", "launch"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = calibrate;
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
  };
  CliResult both = with({"--out", dir / "report.txt", "--write-cluster", dir / "calibrated.yaml"});
  REQUIRE(both.status == 0);
  CHECK(both.out.empty());
  CHECK(contains(slurp(dir / "report.txt"), "launch     7.234  us    1.000-20.000  by the curves"));
  CHECK(contains(slurp(dir / "calibrated.yaml"), "launch"));
  CHECK(slurp(dir / "calibrated.yaml").find("by the curve") == std::string::npos);

  CliResult old = with({"--out", dir / "old.yaml"});
  REQUIRE(old.status == 0);
  CHECK(contains(old.err, "--out " + (dir / "old.yaml") + " is taken as --write-cluster"));
  CHECK(contains(old.out, "by the curve")); // the report, on standard output
  CHECK(slurp(dir / "old.yaml") == slurp(dir / "calibrated.yaml"));

  CliResult same = with({"--out", dir / "x.txt", "--write-cluster", dir / "x.txt"});
  CHECK(same.status == 2);
  CHECK(contains(same.err, "--out and --write-cluster name the same file"));
  CliResult device = with({"--write-device", dir / "d.yaml"});
  CHECK(device.status == 2);
  CHECK(contains(device.err, "--write-device: a benchmark log calibrates a cluster; write it with --write-cluster"));
}

// Several logs at once: each runs on as many of the file's servers as its
// ranks fill (a note says so), the fit pools their sizes, and the report
// has a table for each (JSON: other_logs). A log of ranks that fill no
// whole servers is refused with its name.
TEST_CASE("calibrate fits several logs at once, each on the servers its ranks fill") {
  const std::string twoNodes = source("tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt");
  const std::string oneNode = source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt");
  const std::string cluster = source("configs/clusters/p4d-2x8-efa.yaml");
  const std::vector<std::string> calibrate = {"calibrate", twoNodes, oneNode, "--cluster", cluster,
                                              "--fit", "launch", "--min-bytes", "64MiB"};
  CliResult r = cli(calibrate);
  REQUIRE(r.status == 0);
  CHECK(contains(r.err, oneNode + ": 8 ranks: compared on 1 servers"));
  CHECK(contains(r.out, "tests/data/measured/a100-2x8-efa4x100-nccl2.8.txt: nccl-tests, allreduce float32, 16 ranks"));
  CHECK(contains(r.out, "tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt: nccl-tests, allreduce float32, 8 ranks"));
  std::vector<std::string> json = calibrate;
  json.insert(json.end(), {"--format", "json"});
  auto j = nlohmann::json::parse(cli(json).out);
  REQUIRE(j.at("other_logs").size() == 1);
  CHECK(j.at("other_logs")[0].at("ranks") == 8);
  CHECK(j.at("fitted_ranges").at("launch")[0] == 1.0);
  std::vector<std::string> odd = calibrate;
  odd.insert(odd.end(), {"--set", "devices=6", "--set", "nic.count=2"});
  CliResult refused = cli(odd);
  CHECK(refused.status == 2);
  CHECK(contains(refused.err, "a100-2x8-efa4x100-nccl2.8.txt: measured on 16 ranks, not whole servers of p4d-2x8-efa's 6 devices"));
}

// A figure the log wants past its physical range: the table says so at
// the figure, then what it wants, the range's source and the sizes that
// pull it, in lines of at most 100 columns; JSON has the same in
// outside_range. The A100 sweep's largest sizes want NVLink at 0.65 of its
// line rate (the range starts at 0.75).
TEST_CASE("calibrate says what a log wants past a figure's range, in lines a person reads") {
  const std::vector<std::string> calibrate = {"calibrate", source("tests/data/measured/a100-1x8-nvswitch-nccl2.19.txt"),
                                              "--cluster", source("configs/clusters/dgx-a100-8.yaml"),
                                              "--fit", "efficiency", "--min-bytes", "32MiB"};
  CliResult r = cli(calibrate);
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "   efficiency  0.7500  of line rate  0.7500-1.0000  wants 0.6500: kept at its range's edge\n"));
  CHECK(contains(r.out, "# efficiency: the curves want 0.6500, past its range 0.7500-1.0000; kept at 0.7500\n"));
  CHECK(contains(r.out, "#   the range: NCCL rates NVLink 2-4 at 0.80-0.82 of line rate"));
  CHECK(contains(r.out, "#   pulled by: 128MiB -15.1% -> -2.7%; 64MiB"));
  std::istringstream lines(r.out.substr(r.out.find("# efficiency: the curves want")));
  for (std::string line; std::getline(lines, line) && line.rfind("# before", 0) != 0;) {
    CAPTURE(line);
    CHECK(line.size() <= 100);
  }
  std::vector<std::string> json = calibrate;
  json.insert(json.end(), {"--format", "json"});
  auto j = nlohmann::json::parse(cli(json).out);
  REQUIRE(j.at("outside_range").size() == 1);
  CHECK(j.at("outside_range")[0].at("parameter") == "efficiency");
  CHECK(j.at("outside_range")[0].at("wanted").get<double>() == doctest::Approx(0.65));
  CHECK(j.at("outside_range")[0].at("pulled_by").size() == 3);
}
