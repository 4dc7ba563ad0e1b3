// The declared key registry (sim/config/key_registry.h): every key a shipped
// input file uses is declared where the file puts it, a mistyped key in any
// section gets the registry's nearest name, `collsim keys` filters and
// suggests, and docs/keys.md is what `collsim keys --format md` prints.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "sim/config/key_registry.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::testing;
namespace fs = std::filesystem;

namespace {

bool declared(InputKind file, const std::vector<std::string>& path) {
  for (const DeclaredKey& k : declaredKeys())
    if (k.file == file && pathSegments(k.path()).size() == path.size() && leadsTo(path, k)) return true;
  return false;
}

// Whether some declared key sits inside `path` (it is a section, not a value).
bool isSection(InputKind file, const std::vector<std::string>& path) {
  for (const DeclaredKey& k : declaredKeys())
    if (k.file == file && pathSegments(k.path()).size() > path.size() && leadsTo(path, k)) return true;
  return false;
}

// Walks a YAML file's keys; each must be declared at its path, and each
// section's contents are walked in turn. Returns the keys it found undeclared.
void walk(const YAML::Node& node, InputKind file, std::vector<std::string> path, std::vector<std::string>& undeclared) {
  if (node.IsSequence()) {
    if (path.empty()) return;
    path.back() += "[]";
    if (!isSection(file, path)) return;
    for (const YAML::Node& item : node) walk(item, file, path, undeclared);
    return;
  }
  if (!node.IsMap()) return;
  for (const auto& entry : node) {
    std::vector<std::string> child = path;
    child.push_back(entry.first.as<std::string>());
    std::string dotted;
    for (const auto& s : child) dotted += (dotted.empty() ? "" : ".") + s;
    if (!declared(file, child) && !isSection(file, child)) { // a section of chosen names: sweep.<key>
      undeclared.push_back(dotted);
      continue;
    }
    if (isSection(file, child)) walk(entry.second, file, child, undeclared);
  }
}

struct Shipped {
  const char* folder;
  InputKind file;
  std::vector<std::string> under; // where a file of this folder sits in a scenario
};

} // namespace

TEST_CASE("every key of every shipped input file is declared where the file puts it") {
  const Shipped shipped[] = {{"scenarios", InputKind::Scenario, {}},
                             {"examples/whatif", InputKind::Scenario, {}},
                             {"tests/data/training", InputKind::Scenario, {}},
                             {"configs/clusters", InputKind::Scenario, {"cluster"}},
                             {"configs/models", InputKind::Scenario, {"training", "model"}},
                             {"tests/data/devices", InputKind::Scenario, {"cluster", "device"}},
                             {"configs/selector", InputKind::SelectorRules, {}},
                             {"tests/data/schedules", InputKind::Schedule, {}}};
  int files = 0;
  for (const Shipped& s : shipped) {
    for (const auto& entry : fs::directory_iterator(source(s.folder))) {
      const std::string ext = entry.path().extension().string();
      if (ext != (s.file == InputKind::Schedule ? ".json" : ".yaml")) continue;
      YAML::Node root = YAML::LoadFile(entry.path().string());
      // A folder of scenarios also holds the files they name: clusters,
      // models (examples/whatif/cluster.yaml) and selector grids.
      InputKind file = s.file;
      std::vector<std::string> under = s.under;
      if (s.file == InputKind::Scenario && s.under.empty() && !root["cluster"]) {
        if (root["devices"]) under = {"cluster"};
        if (root["transformer"] || root["layers"]) under = {"training", "model"};
        if (root["ops"] && root["clusters"]) file = InputKind::SelectorGrid;
      }
      std::vector<std::string> undeclared;
      walk(root, file, under, undeclared);
      CAPTURE(entry.path().string());
      std::string listed;
      for (const auto& k : undeclared) listed += " " + k;
      CHECK_MESSAGE(undeclared.empty(), ("undeclared:" + listed));
      ++files;
    }
  }
  CHECK(files > 60);
}

TEST_CASE("the registry: each key declared once, with a type, a default and one line of help") {
  std::set<std::string> seen;
  for (const DeclaredKey& k : declaredKeys()) {
    CAPTURE(k.path());
    CHECK(seen.insert(std::string(inputKindName(k.file)) + ":" + k.form + ":" + k.path()).second);
    CHECK(*k.type);
    CHECK(*k.fallback);
    CHECK(*k.help);
    CHECK(std::string(k.help).size() <= 80);
  }
  // A section nobody declared is collsim's bug, not the user's.
  CHECK_THROWS_AS(declaredKeysOf(InputKind::Scenario, "cluster.scale_sideways"), std::logic_error);
  // Forms exclude each other: the lognormal jitter does not take `uniform`.
  std::vector<std::string> lognormal = declaredKeysOf(InputKind::Scenario, "cluster.<link>.jitter", "lognormal");
  CHECK(std::find(lognormal.begin(), lognormal.end(), "uniform") == lognormal.end());
  CHECK(std::find(lognormal.begin(), lognormal.end(), "median") != lognormal.end());
}

TEST_CASE("a mistyped key in any section gets the nearest declared name, located") {
  struct Case {
    std::string set, expected;
  };
  const Case cases[] = {
      {"cluster.scale_out.dcqcn.alpha_perod=2us", "unknown key 'alpha_perod'; did you mean 'alpha_period'?"},
      {"cluster.fabric.spine=2", "did you mean 'spines'?"},
      {"cluster.device.gemm_eficiency=0.7", "did you mean 'gemm_efficiency'?"},
      {"simulation.sed=3", "did you mean 'seed'?"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.set);
    CliResult r = cli({"run", source("examples/whatif/study.yaml"), "--set", c.set});
    CHECK(r.status == 2);
    CHECK(contains(r.err, "--set " + c.set));
    CHECK(contains(r.err, c.expected));
  }
}

TEST_CASE("a mistyped name gets the nearest known one: collective, algorithm, type, device, presets, choices") {
  const std::string cluster = source("configs/clusters/hccs-ring-8.yaml"), study = source("examples/whatif/study.yaml");
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const Case cases[] = {
      {{"perf", "--cluster", cluster, "--op", "allreduc"}, "--op: unknown collective 'allreduc'; did you mean 'allreduce'?"},
      {{"perf", "--cluster", cluster, "--algo", "rign"}, "no algorithm 'rign' for allreduce; did you mean 'ring'?"},
      {{"verify", "--algo", "rdh"}, "did you mean 'rhd'?"},
      {{"perf", "--cluster", cluster, "--dtype", "float23"}, "unknown type 'float23'; did you mean 'float32'?"},
      {{"run", study, "--set", "cluster.device=a100-sxm4-80g"}, "no such file; did you mean 'a100-sxm4-80gb'?"},
      {{"run", study, "--set", "cluster.device.name=h100-sxm5-80g"}, "unknown device 'h100-sxm5-80g'; did you mean 'h100-sxm5-80gb'?"},
      {{"run", study, "--set", "cluster.scale_out.dcqcn=connectix"}, "did you mean 'connectx'?"},
      {{"run", study, "--set", "cluster.library=ncl"}, "unknown library 'ncl'; did you mean 'nccl'?"},
      {{"run", study, "--set", "op=allgater"}, "did you mean 'allgather'?"},
      {{"run", study, "--set", "cluster.scale_up.shape=rng"}, "'rng' is not one of: ring, mesh, 2x4, links, switch; did you mean 'ring'?"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.expected);
    CliResult r = cli(c.args);
    CHECK(r.status == 2);
    CHECK(contains(r.err, c.expected));
  }
}

TEST_CASE("collsim keys lists a section's keys, in either spelling, and suggests a path") {
  CliResult dcqcn = cli({"keys", "cluster.roce.dcqcn"});
  REQUIRE_MESSAGE(dcqcn.status == 0, dcqcn.err);
  CHECK(contains(dcqcn.out, "cluster.scale_out.dcqcn.alpha_period: time (default: preset)"));
  CHECK(!contains(dcqcn.out, "cluster.scale_out.ecn"));
  // The jitter of either link, by its placeholder.
  CliResult jitter = cli({"keys", "cluster.hccs.jitter.median"});
  CHECK(contains(jitter.out, "cluster.<link>.jitter.median (lognormal form): time (required)"));
  CliResult json = cli({"keys", "--file", "schedule", "--format", "json"});
  REQUIRE(json.status == 0);
  const nlohmann::json parsed = nlohmann::json::parse(json.out);
  CHECK(parsed["keys"].size() == declaredKeysOf(InputKind::Schedule, "").size() +
                                     declaredKeysOf(InputKind::Schedule, "program[]").size());
  CliResult typo = cli({"keys", "training.parallel.virtual_stage"});
  CHECK(typo.status == 2);
  CHECK(contains(typo.err, "did you mean 'training.parallel.virtual_stages'?"));
  CliResult format = cli({"keys", "--format", "yaml"});
  CHECK(format.status == 2);
  CHECK(contains(format.err, "table"));
}

TEST_CASE("docs/keys.md is what collsim keys --format md prints") {
  std::ifstream in(source("docs/keys.md"));
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  const std::size_t tables = text.find("\n## ");
  REQUIRE(tables != std::string::npos);
  CliResult md = cli({"keys", "--format", "md"});
  REQUIRE(md.status == 0);
  CHECK_MESSAGE(text.substr(tables + 1) == md.out,
                "regenerate the tables: (head of docs/keys.md) + build/collsim keys --format md");
}
