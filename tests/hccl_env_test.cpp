// HCCL environment settings: real variables, the article's aliases, loops.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "test_support.h"
#include "sim/run/simulate.h"
#include "sim/config/cluster_config.h"
#include "sim/config/config_node.h"
#include "sim/hccl/hccl_env.h"
#include "sim/hccl/hccl_variables.h"

using namespace collsim;
using namespace collsim::testing;
using namespace collsim::literals;

namespace {

Cluster atlas(int servers) { return atlasCluster(servers); }

HcclSettings settings(std::vector<std::pair<std::string, std::string>> vars, const Cluster& c) {
  std::vector<EnvSetting> s;
  for (auto& [n, v] : vars) s.push_back({n, v, "test"});
  return interpretHcclSettings(s, c);
}

bool mentions(const HcclSettings& h, const std::string& word) {
  for (const auto& n : h.notices)
    if (n.text().find(word) != std::string::npos) return true;
  return false;
}

} // namespace

TEST_CASE("the article's topology script picks by WORLD_SIZE, as its if-blocks say") {
  Cluster two = atlas(2), one = loadClusterFile(source("configs/clusters/hccs-ring-8.yaml"), {}).cluster;
  auto script = source("tests/data/env/seed-topology.sh");
  HcclSettings big = interpretHcclSettings(readEnvFile(script, two.ranks()), two);     // WORLD_SIZE 16
  HcclSettings small = interpretHcclSettings(readEnvFile(script, one.ranks()), one);   // WORLD_SIZE 8
  CHECK(big.algorithm.at(Collective::AllReduce) == "hier:ring+rhd"); // 3 = hierarchical, intra 1 ring, inter 2 RHD
  CHECK(small.algorithm.at(Collective::AllReduce) == "ring");        // 1 = ring
  CHECK(mentions(big, "not a real HCCL setting; HCCL's is HCCL_ALGO"));
}

TEST_CASE("an unbalanced if-block is an error at its line") {
  CHECK_THROWS_WITH_AS(readEnvText("export A=1\nif [ \"$WORLD_SIZE\" -le 8 ]; then\nexport B=2\n", "c.sh", 8),
                       doctest::Contains("c.sh:2: 'if' without 'fi'"), ConfigError);
  CHECK_THROWS_WITH_AS(readEnvText("export A=1\nfi\n", "c.sh", 8), doctest::Contains("c.sh:2: 'fi' without 'if'"),
                       ConfigError);
}

TEST_CASE("the article's link script: a notice for every variable, MTU and QPs for the RoCE model") {
  Cluster c = atlas(2);
  auto env = readEnvFile(source("tests/data/env/seed-links.sh"), c.ranks());
  CHECK(env.size() == 7);
  HcclSettings h = interpretHcclSettings(env, c);
  CHECK(h.notices.size() == 7);
  REQUIRE(h.mtu);
  CHECK(*h.mtu == 4096);
  REQUIRE(h.queuePairs);
  CHECK(*h.queuePairs == 1); // the article uses a single QP
  CHECK(mentions(h, "HCCL_RDMA_QPS_PER_CONNECTION")); // the real name for HCCL_ROCE_QP_NUM
  // Its HCCL_INTER_NODE_DEVS=8 contradicts a 4-device server: an error naming it.
  Cluster four = loadClusterFile(source("configs/clusters/atlas-2x8.yaml"), {"devices=4"}).cluster;
  CHECK_THROWS_WITH_AS(interpretHcclSettings(env, four), doctest::Contains("HCCL_INTER_NODE_DEVS=8"), ConfigError);
}

TEST_CASE("HCCL_ALGO: global and per operation, level 0 by hardware") {
  Cluster ring2 = atlas(2);
  HcclSettings g = settings({{"HCCL_ALGO", "level0:NA;level1:H-D_R"}}, ring2);
  CHECK(g.algorithm.at(Collective::AllReduce) == "hier:ring+rhd");
  CHECK(g.algorithm.at(Collective::AllGather) == "hier:ring+rhd");
  Cluster mesh2 = loadClusterFile(source("configs/clusters/atlas-2x8-mesh.yaml"), {}).cluster;
  HcclSettings p = settings({{"HCCL_ALGO", "allreduce=level0:NA;level1:NHR/allgather=level0:NA;level1:ring"}}, mesh2);
  CHECK(p.algorithm.at(Collective::AllReduce) == "hier:mesh+nhr");
  CHECK(p.algorithm.at(Collective::AllGather) == "hier:mesh+ring");
  CHECK(p.algorithm.count(Collective::ReduceScatter) == 0);
  CHECK(settings({{"HCCL_ALGO", "level0:NA;level1:pipeline"}}, ring2).algorithm.at(Collective::AllReduce) ==
        "hierpipe:ring+ring");
}

TEST_CASE("malformed values are errors naming the variable - unknown names are reported") {
  Cluster c = atlas(2);
  CHECK_THROWS_WITH_AS(settings({{"HCCL_ALGO", "level0:ring;level1:ring"}}, c), doctest::Contains("HCCL_ALGO"), ConfigError);
  CHECK_THROWS_WITH_AS(settings({{"HCCL_ALGO", "level0:NA;level1:AHC"}}, c), doctest::Contains("AHC"), ConfigError);
  CHECK_THROWS_WITH_AS(settings({{"HCCL_BUFFSIZE", "lots"}}, c), doctest::Contains("HCCL_BUFFSIZE=lots"), ConfigError);
  CHECK_THROWS_AS(settings({{"HCCL_INTRA_ROCE_ENABLE", "2"}}, c), ConfigError);
  HcclSettings u = settings({{"HCCL_FROBNICATE", "1"}}, c);
  CHECK(mentions(u, "unknown HCCL setting"));
  HcclSettings real = settings({{"HCCL_EXEC_TIMEOUT", "1836"}}, c);
  CHECK(mentions(real, "real HCCL setting with no effect"));
}

TEST_CASE("HCCL_BUFFSIZE: data larger than the buffer runs in loops") {
  // 200 MB (MiB) buffer, 1 GiB of data: 5 full loops of 200 MiB and one of 24 MiB.
  Cluster c = atlas(2);
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "hier:ring+rhd");
  auto time = [&](Bytes bytes, Bytes loop) {
    RunRequest req{Collective::AllReduce, &ring, DataType::Float32, bytes, 1_MiB, false, 0, loop};
    return simulateCollective(c, req).execution.finish;
  };
  Time looped = time(1_GiB, 200_MiB);
  CHECK(looped == 5 * time(200_MiB, 0) + time(24_MiB, 0));
  CHECK(looped > time(1_GiB, 0)); // every loop pays the latencies again
  HcclSettings h = settings({{"HCCL_BUFFSIZE", "200"}}, c);
  REQUIRE(h.bufferSize);
  CHECK(*h.bufferSize == 200_MiB);
}

TEST_CASE("nested if-blocks: a line counts when every block around it holds") {
  const std::string text = "if [ \"$WORLD_SIZE\" -ge 8 ]; then\nexport A=1\nif [ \"$WORLD_SIZE\" -ge 16 ]; then\n"
                           "export B=2\nfi\nexport C=3\nfi\nexport D=4\n";
  auto names = [&](int worldSize) {
    std::string out;
    for (const EnvSetting& s : readEnvText(text, "n.sh", worldSize)) out += s.name;
    return out;
  };
  CHECK(names(4) == "D");
  CHECK(names(8) == "ACD");
  CHECK(names(16) == "ABCD");
}

TEST_CASE("an env file's escape sequences never reach the terminal raw") {
  TempDir dir;
  // In a notice (an unknown variable's value) and in an error (a value that is not a number).
  for (const char* text : {"export HCCL_WHATEVER=\x1b[2J\x1b]0;owned\x07\n", "export HCCL_BUFFSIZE=\x1b[31mred\n"}) {
    CliResult r = cli({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "-b", "1MiB", "-e", "1MiB",
                       "--env-file", dir.write("esc.sh", text)});
    CAPTURE(r.err);
    CHECK(r.err.find('\x1b') == std::string::npos);
    CHECK(r.err.find('\x07') == std::string::npos);
    CHECK(contains(r.err, "esc.sh:1: HCCL_"));
  }
}

TEST_CASE("collsim perf --env-file applies the settings and prints the notices") {
  CliResult r = cli({"perf", "--cluster", source("configs/clusters/atlas-2x8.yaml"), "-b", "1MiB", "-e", "1MiB",
                     "--env-file", source("tests/data/env/seed-topology.sh"), "--format", "csv"});
  CHECK(r.status == 0);
  CHECK(r.out.find("hier:ring+rhd") != std::string::npos);
  CHECK(r.err.find("HCCL_COMM_ALGO_SELECT") != std::string::npos);
}

TEST_CASE("hccl-env says what an env file does in the format asked: a row per setting, the same in every format") {
  auto report = [](const std::string& format) {
    return cli({"hccl-env", "--env-file", source("tests/data/env/seed-topology.sh"), "--cluster",
                source("configs/clusters/atlas-2x8.yaml"), "--format", format});
  };
  CliResult text = report("table"), json = report("json"), csv = report("csv");
  REQUIRE(text.status == 0);
  REQUIRE(json.status == 0);
  REQUIRE(csv.status == 0);
  // Six variables of the file, then what the article's selection variables chose together.
  std::vector<std::string> lines = splitLines(text.out);
  REQUIRE(lines.size() == 7);
  CHECK(lines.back() == "HCCL_COMM_ALGO_SELECT and friends: allreduce uses hier:ring+rhd");
  auto rows = nlohmann::json::parse(json.out).at("hccl_settings");
  REQUIRE(rows.size() == lines.size());
  CHECK(rows[1].at("origin") == source("tests/data/env/seed-topology.sh") + ":10");
  CHECK(rows[1].at("variable") == "HCCL_COMM_ALGO_SELECT");
  CHECK(rows[1].at("value") == "0");
  CHECK(rows[6].at("effect") == "allreduce uses hier:ring+rhd");
  for (std::size_t i = 0; i < rows.size(); ++i) // the text line is the row's fields joined
    CHECK(contains(lines[i], rows[i].at("effect").get<std::string>()));
  CHECK(splitLines(csv.out).size() == rows.size() + 1); // a header
}

TEST_CASE("every listed HCCL variable is interpreted as its row says: real ones plainly, the article's as not real") {
  Cluster atlas = collsim::testing::atlasCluster(2);
  // A value each rule accepts on this cluster.
  auto valueFor = [](const std::string& name) -> std::string {
    if (name == "HCCL_ALGO") return "level0:NA;level1:ring";
    if (name == "HCCL_GROUP_SPLIT") return "NODE";
    if (name == "HCCL_INTER_NODE_DEVS") return "8";
    if (name == "HCCL_ROCE_MTU") return "4096";
    return "1";
  };
  for (const HcclVariable& v : hcclVariables()) {
    std::string name = v.name;
    if (name.back() == '*') name.back() = 'X'; // a name the prefix covers
    CAPTURE(name);
    HcclSettings h = interpretHcclSettings({{name, valueFor(name), "test"}}, atlas);
    REQUIRE(!h.notices.empty());
    const std::string notice = h.notices.front().text(); // SELECT adds what it chose after it
    CHECK(notice.rfind("test: " + name + "=", 0) == 0);
    CHECK((notice.find("not a real HCCL setting") != std::string::npos) == !v.real);
    if (*v.realName) CHECK(notice.find(std::string("HCCL's is ") + v.realName) != std::string::npos);
  }
  CHECK(findHcclVariable("HCCL_NO_SUCH") == nullptr);
  CHECK(interpretHcclSettings({{"HCCL_NO_SUCH", "1", "test"}}, atlas).notices.front().text() ==
        "test: HCCL_NO_SUCH=1: unknown HCCL setting, ignored");
}
