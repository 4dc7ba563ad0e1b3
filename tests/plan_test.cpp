// collsim plan: the layouts it enumerates and prunes, and its ranking. A
// layout that does not fit is never ranked; every ranked one ran.
#include <doctest/doctest.h>

#include "test_support.h"

#include <nlohmann/json.hpp>

#include "sim/config/config_node.h"
#include "sim/config/model_config.h"
#include "sim/workload/layout_search.h"

using namespace collsim;
using namespace collsim::literals;
using collsim::testing::cli;
using collsim::testing::source;
using collsim::testing::CliResult;
using collsim::testing::contains;

namespace {

TrainingSpec llama8b() {
  YAML::Node yaml = loadYamlFile(source("configs/models/llama3-8b.yaml"), "a model");
  TrainingSpec t;
  t.model = loadModel(ConfigNode(yaml, std::make_shared<ConfigOrigins>("llama3-8b.yaml")));
  return t;
}

Cluster atlas800(int servers) {
  return loadClusterFile(source("configs/clusters/atlas-800t-a2-8.yaml"), {"servers=" + std::to_string(servers)}).cluster;
}

} // namespace

TEST_CASE("layouts are pruned for what they do not divide and for memory, with the reason") {
  Cluster c = atlas800(2); // 16 devices of 64 GB, 8 a server
  PlanSpace space;
  space.globalBatch = 64;
  space.tp = {3, 8, 16};
  space.pp = {1, 2};
  space.zero = {0};
  std::vector<LayoutCandidate> all = enumerateLayouts(c, llama8b(), space, 200_MiB);
  REQUIRE(all.size() == 6);
  auto reason = [&](int tp, int pp) {
    for (const auto& l : all)
      if (l.layout.tp == tp && l.layout.pp == pp) return l.pruned;
    return std::string("?");
  };
  CHECK(reason(3, 1) == "tp x pp = 3 does not divide the 16 devices");
  CHECK(reason(16, 1) == "tp 16 would span servers of 8 devices");
  CHECK(reason(8, 1).empty());
  CHECK(reason(8, 2).empty());
  // On three servers tp 3 divides the devices; the model's own check (the
  // one `run` makes) refuses it.
  all = enumerateLayouts(atlas800(3), llama8b(), space, 200_MiB);
  for (const auto& l : all)
    if (l.layout.tp == 3) CHECK(l.pruned == "tp 3 does not divide the model's 32 heads");
  // The 8 B model with plain data parallelism needs about 130 GB a device.
  space.tp = {1};
  space.pp = {1};
  all = enumerateLayouts(c, llama8b(), space, 200_MiB);
  REQUIRE(all.size() == 1);
  CHECK(all[0].pruned.rfind("needs ", 0) == 0);
  CHECK(all[0].memory.total() > c.device.memory);
  // A global batch that dp x micro-batch does not divide.
  space.globalBatch = 24;
  space.tp = {8};
  all = enumerateLayouts(c, llama8b(), space, 200_MiB); // dp 2, micro-batch 1: 24 is fine
  CHECK(all[0].pruned.empty());
  CHECK(all[0].layout.microBatches == 12);
  space.microBatch = {5};
  all = enumerateLayouts(c, llama8b(), space, 200_MiB);
  CHECK(all[0].pruned == "the global batch 24 is not a multiple of micro-batch x dp = 5 x 2");
}

TEST_CASE("plan ranks only layouts that fit, fastest first, and lists the pruned with their reasons") {
  auto r = cli({"plan", source("tests/data/training/plan-llama3-8b-2x8.yaml"), "--format", "json"});
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  const auto& plans = doc["plans"];
  REQUIRE(plans.size() > 5);
  double device = doc["device_memory_GiB"], previous = 0;
  for (const auto& p : plans) {
    CHECK(p["status"] == "ok");
    CHECK(p["fits"] == true);
    CHECK(p["memory_GiB"].get<double>() <= device);
    CHECK(p["tp"].get<int>() * p["pp"].get<int>() * p["dp"].get<int>() == 16);
    CHECK(p["micro_batch"].get<int>() * p["micro_batches"].get<int>() * p["dp"].get<int>() == 64);
    double step = p["step_ms"];
    CHECK(step >= previous);
    previous = step;
    const auto& b = p["breakdown"];
    double sum = b["compute_ms"].get<double>() + b["tp_ms"].get<double>() + b["pp_ms"].get<double>() +
                 b["bubble_ms"].get<double>() + b["dp_ms"].get<double>() + b["optimizer_ms"].get<double>();
    CHECK(std::abs(sum - step) < 1e-6 * step);
  }
  std::size_t memory = 0;
  for (const auto& p : doc["pruned"]) {
    std::string why = p["reason"];
    CHECK(!why.empty());
    if (why.rfind("needs ", 0) != 0) continue;
    ++memory;
    CHECK(p["memory_GiB"].get<double>() > device);
  }
  CHECK(memory > 0);
  // A scenario without a plan block is refused.
  r = cli({"plan", source("tests/data/training/llama3-8b-tp8-pp2.yaml"), "--set", "cluster.servers=2"});
  CHECK(r.status == 2);
  CHECK(r.err.find("has no plan: block") != std::string::npos);
}

// A bucket of one byte, or a global batch of 10^12, asked the estimate to
// build billions of program items (12-16 GiB, then exit 1): such layouts
// are now pruned, with the reason, before anything is built.
TEST_CASE("plan prunes layouts whose step would hold too many buckets or micro-batches to build") {
  const std::string plan = source("tests/data/training/plan-llama3-8b-2x8.yaml");
  CliResult tiny = cli({"plan", plan, "--set", "training.bucket=1", "--format", "json"});
  REQUIRE(tiny.status == 0);
  nlohmann::json doc = nlohmann::json::parse(tiny.out);
  int buckets = 0;
  for (const auto& p : doc["pruned"]) buckets += contains(p["reason"].get<std::string>(), "choose a larger training.bucket");
  CHECK(buckets > 0);
  CliResult huge = cli({"plan", plan, "--set", "plan.global_batch=1000000000000", "--format", "json"});
  doc = nlohmann::json::parse(huge.out);
  CHECK(doc["plans"].empty());
  int batches = 0;
  for (const auto& p : doc["pruned"]) batches += contains(p["reason"].get<std::string>(), "more than collsim simulates");
  CHECK(batches > 0);
}
