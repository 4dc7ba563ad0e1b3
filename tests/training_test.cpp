// The training-step model against hand-derived cases: no overlap is compute
// plus every bucket's AllReduce, full overlap hides all but the last,
// accumulation divides communication per sample, bucket counts, memory.
#include <doctest/doctest.h>

#include "relative_error.h"
#include "test_support.h"

#include <filesystem>
#include <fstream>
#include <numeric>

#include "algorithms/core/compose.h"
#include "algorithms/core/registry.h"
#include "sim/executor/schedule_executor.h"
#include "sim/network/link_network.h"
#include "sim/run/simulate.h"
#include "sim/config/config_node.h"
#include "sim/config/model_config.h"
#include "sim/scenario/scenario.h"
#include "sim/workload/bucket_cuts.h"
#include "sim/workload/step_simulation.h"
#include "topologies/server_shapes.h"

using namespace collsim;
using namespace collsim::literals;
using collsim::testing::source;

namespace {

Cluster ring(int p) {
  Cluster c = collsim::testing::hccsRing(p);
  c.device.memoryBandwidth = 1'200'000'000'000ULL;
  c.device.memory = 32_GiB;
  return c;
}

ModelSpec toyModel() {
  YAML::Node yaml = loadYamlFile(source("tests/data/training/toy-model.yaml"), "a model");
  return loadModel(ConfigNode(yaml, std::make_shared<ConfigOrigins>("toy-model.yaml")));
}

TrainingSpec toy(Bytes bucket, bool overlap, int accumulation = 1, int pipeline = 1) {
  TrainingSpec t;
  t.model = toyModel();
  t.bucket = bucket;
  t.overlap = overlap;
  t.accumulation = accumulation;
  t.pipeline = pipeline;
  return t;
}

// One bucket's AllReduce alone on an idle cluster.
Time allReduceAlone(const Cluster& c, Bytes bytes) {
  AlgorithmEntry ring = *findAlgorithm(Collective::AllReduce, "ring");
  RunRequest req{Collective::AllReduce, &ring, DataType::Float32, bytes, 1_MiB, false};
  return simulateCollective(c, req).execution.finish;
}

Time copy(Bytes bytes) { return serializationTime(2 * bytes, 1'200'000'000'000ULL); }

StepResult step(const Cluster& c, const TrainingSpec& t) { return simulateTrainingStep(c, t, StepOptions{}); }

} // namespace

TEST_CASE("a Compute operation takes its time and pays no step overhead") {
  Cluster c = ring(2);
  c.device.stepOverhead = 5_us;
  MaterializedSchedule steps(2);
  for (auto& rank : steps) {
    rank.push_back({Op{OpKind::Compute, 0, 0, 0, 0, 3_us}});
    rank.push_back({Op{OpKind::Compute, 0, 0, 0, 0, 4_us}});
  }
  ExplicitSchedule s(steps);
  EventEngine engine;
  LinkNetwork network(engine, c, 4096, 1_MiB);
  ScheduleExecutor x(engine, network, c, s);
  CHECK(x.run().finish == 7_us);
}

TEST_CASE("computation beside a running collective loses the share of the device its kernels hold") {
  // Rank 0 computes for 100 us on one stream and sends 480,000 B to rank 1
  // on another: 40 us at 12 GB/s and 1 us of latency, so it communicates
  // from 0 to 41 us. Holding a quarter of the device, the collective leaves
  // the computation 0.75 x 41 = 30.75 us of work done by then; the other
  // 69.25 us run at full speed: 110.25 us. Holding all of it, the
  // computation waits for the send: 141 us.
  Cluster c = ring(2);
  MaterializedSchedule compute(2), send(2);
  compute[0].push_back({Op{OpKind::Compute, 0, 0, 0, 0, 100_us}});
  send[0].push_back({Op{OpKind::Send, 1, 0, 480'000}});
  send[1].push_back({Op{OpKind::Recv, 0, 0, 480'000}});
  std::vector<SchedulePtr> streams;
  streams.push_back(std::make_unique<ExplicitSchedule>(compute));
  streams.push_back(std::make_unique<ExplicitSchedule>(send));
  StreamsSchedule s(std::move(streams));
  for (const auto& expected : {std::pair{0.0, 100_us}, {0.25, 110'250'000}, {1.0, 141_us}}) {
    double share = expected.first; // a plain name: clang 14's CAPTURE cannot take a structured binding
    Time finish = expected.second;
    CAPTURE(share);
    EventEngine engine;
    LinkNetwork network(engine, c, 4096, 1_MiB);
    ScheduleExecutor x(engine, network, c, s);
    x.setComputeShareTaken(share);
    CHECK(x.run().finish == Time(finish));
  }
}

TEST_CASE("buckets cut the gradients in backward order, each ready where its last byte is") {
  // The toy model's 4 layers of 4 MB, backward from the last: a bucket
  // fills at a fraction of the layer that makes its last byte.
  std::vector<LayerGradients> order;
  for (std::size_t i = 4; i-- > 0;) order.push_back({i, {4'000'000, 0}});
  for (Bytes bucket : {Bytes(4000), 1_MiB, Bytes(4'000'000), Bytes(6'000'000), 1_GiB}) {
    CAPTURE(bucket);
    std::vector<BucketCut> cuts = cutBuckets(order, bucket, {true, true});
    Bytes bytes = 0;
    for (std::size_t b = 0; b < cuts.size(); ++b) {
      bytes += cuts[b].bytes;
      CHECK(cuts[b].fraction > 0);
      CHECK(cuts[b].fraction <= 1);
      if (b + 1 < cuts.size()) CHECK(cuts[b].bytes == bucket);
      if (b > 0) CHECK((cuts[b].layer < cuts[b - 1].layer ||
                        (cuts[b].layer == cuts[b - 1].layer && cuts[b].fraction >= cuts[b - 1].fraction)));
    }
    CHECK(bytes == 16'000'000);
    CHECK(cuts.back().layer == 0);
    CHECK(cuts.back().fraction == 1);
  }
  // 6 MB over 4 MB layers: the first fills halfway through the second
  // layer backward makes (layer 2), the second at the end of layer 1.
  std::vector<BucketCut> six = cutBuckets(order, 6'000'000, {true, true});
  REQUIRE(six.size() == 3);
  CHECK((six[0].layer == 2 && six[0].fraction == 0.5));
  CHECK((six[1].layer == 1 && six[1].fraction == 1));
  // Two groups fill their own buckets, in the order of their bytes within a layer.
  std::vector<BucketCut> both = cutBuckets({{0, {4, 12}}}, 3, {true, true});
  REQUIRE(both.size() == 6);
  CHECK((both[0].group == 1 && both[0].fraction == 0.25));
  CHECK((both[1].group == 1 && both[1].fraction == 0.5));
  CHECK((both[2].group == 0 && both[2].fraction == 0.75)); // dense first at one fraction
  CHECK((both[3].group == 1 && both[3].fraction == 0.75));
  CHECK((both[4].group == 0 && both[4].fraction == 1 && both[4].bytes == 1));
  CHECK((both[5].group == 1 && both[5].fraction == 1));
  CHECK(cutBuckets({{0, {4, 12}}}, 3, {true, false}).size() == 2);
}

TEST_CASE("a bucket is ready in the step where backward has made its last byte") {
  // Forward 1 ms, then backward 0.5 ms a layer from the last: the first
  // 6 MB bucket is ready 0.25 ms into the second layer, at 1.75 ms.
  Cluster c = ring(4);
  StepResult r = step(c, toy(6'000'000, true));
  REQUIRE(r.buckets.size() == 3);
  CHECK(r.buckets[0].ready == 1_ms + 750_us);
  CHECK(r.buckets[1].ready >= 1_ms + 1500_us);
  // Over 5e17 ps (a mutated model's 6 days of backward) a cut rounded past
  // its layer's end once left a piece a negative time: the pieces stay in order.
  TrainingSpec slow = toy(3'000'000, true);
  slow.model.backward = Time(513'660'028'105'047'426);
  StepResult s = step(c, slow);
  for (std::size_t b = 1; b < s.buckets.size(); ++b) CHECK(s.buckets[b].ready >= s.buckets[b - 1].ready);
  CHECK(s.iteration >= s.compute);
}

TEST_CASE("without overlap a step is compute plus every bucket's AllReduce and copies, and says so") {
  Cluster c = ring(4);
  for (Bytes bucket : {Bytes(4'000'000), Bytes(3'000'000), 1_GiB}) {
    CAPTURE(bucket);
    TrainingSpec t = toy(bucket, false);
    StepResult r = step(c, t);
    double expected = double(r.compute);
    for (const auto& b : r.buckets) expected += double(allReduceAlone(c, b.bytes) + 2 * copy(b.bytes));
    CHECK_WITHIN(double(r.iteration), expected, 0.001);
    CHECK(r.compute == 1_ms + 2_ms + r.optimizer);
    CHECK(r.exposed == r.iteration - r.compute);
    // Where the time went: the passes, the wait for every bucket, the optimizer.
    CHECK(r.breakdown.compute == 1_ms + 2_ms);
    CHECK(r.breakdown.optimizer == r.optimizer);
    CHECK(r.breakdown.dataParallel == r.exposed);
  }
}

TEST_CASE("a bucket's AllReduce on several streams takes inside a step what it takes alone") {
  // hierpipe's stages are streams that wait for each other by their own
  // step counts; in the step each runs behind steps of the bucket's own
  // (the gate, the copy in). One bucket after all of backward, on an idle
  // network: from its start to its end it is the collective alone, to the
  // picosecond. (Waits taken as the stream's own count let a stage start
  // before the one it waits for was there: 2347.3 us against 2350.3.)
  Cluster c = collsim::testing::atlasCluster(2);
  c.device.memoryBandwidth = 1'200'000'000'000ULL;
  TrainingSpec t = toy(1_GiB, false);
  StepOptions o;
  o.algorithm = "hierpipe:ring+ring";
  StepResult r = simulateTrainingStep(c, t, o);
  REQUIRE(r.buckets.size() == 1);
  AlgorithmEntry hierpipe = *findAlgorithm(Collective::AllReduce, o.algorithm);
  RunRequest req{Collective::AllReduce, &hierpipe, DataType::Float32, r.buckets[0].bytes, 1_MiB, false};
  CollectiveRun alone = simulateCollective(c, req);
  REQUIRE(alone.execution.finish > 0);
  CHECK(r.buckets[0].end - r.buckets[0].start == alone.execution.finish);
}

TEST_CASE("with overlap only the last bucket's AllReduce is exposed when compute hides the rest") {
  // 4 MB buckets on 4 devices take ~0.52 ms each with their copies; each
  // layer's backward takes 1 ms, so every bucket but the last finishes
  // under compute.
  Cluster c = ring(4);
  TrainingSpec t = toy(4'000'000, true);
  t.model.backward = 4_ms;
  StepResult on = step(c, t);
  t.overlap = false;
  StepResult off = step(c, t);
  Time comm = 0;
  for (const auto& b : on.buckets) comm += b.end - b.start;
  CHECK(on.iteration >= std::max(on.compute, comm));
  CHECK(on.iteration <= on.compute + comm + 4 * 2 * copy(4'000'000));
  const BucketTiming& last = on.buckets.back();
  double lastChain = double(allReduceAlone(c, last.bytes) + 2 * copy(last.bytes));
  CHECK_WITHIN(double(on.iteration - on.compute), lastChain, 0.01);
  CHECK(on.iteration < off.iteration);
}

TEST_CASE("accumulating k micro-batches divides communication per sample by k") {
  Cluster c = ring(4);
  StepResult one = step(c, toy(4'000'000, true, 1));
  StepResult four = step(c, toy(4'000'000, true, 4));
  CHECK(four.compute == 4 * (1_ms + 2_ms) + four.optimizer);
  CHECK_WITHIN(double(four.communication), double(one.communication), 0.001);
  double perSampleOne = double(one.communication) / (one.samplesPerSecond() * toSeconds(one.iteration));
  double perSampleFour = double(four.communication) / (four.samplesPerSecond() * toSeconds(four.iteration));
  CHECK_WITHIN(perSampleFour, perSampleOne / 4, 0.001);
  CHECK(four.samplesPerSecond() > one.samplesPerSecond());
}

TEST_CASE("one-element buckets and one bucket bound the bucket-count effect") {
  Cluster c = ring(4);
  TrainingSpec tiny = toy(1, false), whole = toy(1_GiB, false);
  tiny.model.layers = {{"a", 256, 0.5}, {"b", 256, 0.5}}; // 2 KiB of gradients
  whole.model.layers = tiny.model.layers;
  StepResult many = step(c, tiny), one = step(c, whole);
  CHECK(many.buckets.size() == 512);
  CHECK(one.buckets.size() == 1);
  // Each one-element AllReduce costs its 2(p-1) latencies; one bucket pays them once.
  double perBucket = double(allReduceAlone(c, 4) + 2 * copy(4));
  CHECK_WITHIN(double(many.iteration - many.compute), 512 * perBucket, 0.01);
  CHECK(many.iteration > one.iteration);
  CHECK(one.iteration - one.compute < 2 * (many.iteration - many.compute) / 512 + 10_us);
}

TEST_CASE("on one device nothing is reduced: no buckets, and the step is its compute") {
  // A group of one has no peers: the gradients are the device's own.
  StepResult r = step(ring(1), toy(4'000'000, true));
  CHECK(r.buckets.empty());
  CHECK(r.meanAllReduce() == 0);
  CHECK(r.iteration == r.compute);
  CHECK(r.memory.bucketBuffers == 0);
}

TEST_CASE("memory per device adds up for the toy model") {
  Cluster c = ring(4);
  StepResult r = step(c, toy(4'000'000, true, 4, 2));
  const MemoryBreakdown& m = r.memory;
  CHECK(m.weights == 16'000'000);
  CHECK(m.masterWeights == 0);
  CHECK(m.gradients == 16'000'000);
  CHECK(m.optimizerState == 32'000'000);
  CHECK(m.accumulationBuffer == 16'000'000); // accumulation > 1 with a 4-byte buffer
  CHECK(m.activations == 20'000'000);        // 10 MB x micro-batch 2
  CHECK(m.bucketBuffers == 8'000'000);       // two 4 MB buckets in flight
  CHECK(m.communicatorBuffers == 2 * (200_MiB));
  CHECK(m.total() == 108'000'000 + 2 * 200_MiB);
  CHECK(step(c, toy(4'000'000, true, 1, 1)).memory.total() == 88'000'000 + 2 * 200_MiB);
}

TEST_CASE("a study expands its variants times its sweep") {
  auto study = loadStudyFile(source("tests/data/training/toy-study.yaml"), {});
  REQUIRE(study.size() == 2 * 2 * 3);
  CHECK(study[0].variant == "plain");
  CHECK(study[0].sweepValues == std::vector<std::pair<std::string, std::string>>{
                                    {"training.accumulation", "1"}, {"training.bucket", "2MB"}});
  CHECK(study[0].training->overlap == false);
  CHECK(study[6].training->pipeline == 2);
  CHECK(study[5].training->bucket == 8'000'000);
  CHECK(study[5].training->accumulation == 2);
  CHECK(study[0].reference.at("step_ms") == 10);
  // --set reaches every point; on a key a variant sets it would contradict the rows, and is refused.
  auto set = loadStudyFile(source("tests/data/training/toy-study.yaml"), {"cluster.devices=8"});
  for (const auto& s : set) CHECK(s.cluster.ranks() == 8);
  CHECK_THROWS_WITH_AS(loadStudyFile(source("tests/data/training/toy-study.yaml"), {"training.pipeline=3"}),
                       doctest::Contains("the study's variant 'tuned' sets training.pipeline"), collsim::UsageError);
}

TEST_CASE("study errors point at the key") {
  namespace fs = std::filesystem;
  collsim::testing::TempDir temp;
  const fs::path& dir = temp.path();
  fs::copy_file(source("tests/data/training/toy-model.yaml"), dir / "toy-model.yaml",
                fs::copy_options::overwrite_existing);
  auto fails = [&](const std::string& yaml, const std::string& expected) {
    std::ofstream(dir / "s.yaml") << "name: x\ncluster: {devices: 2, hccs: {shape: ring, bandwidth: 1GB/s, latency: 1us}}\n"
                                  << "training: {model: toy-model.yaml}\n"
                                  << yaml;
    try {
      loadStudyFile((dir / "s.yaml").string(), {});
      FAIL("no error for: " << yaml);
    } catch (const ConfigError& e) {
      CAPTURE(e.what());
      CHECK(std::string(e.what()).find(expected) != std::string::npos);
    }
  };
  fails("sweep: {training.buckt: [1MB]}\n", "sweep training.buckt");
  fails("sweep: {training.bucket: []}\n", "no values");
  fails("sweep: {training.bucket: {min: 8MB, max: 1MB}}\n", "min <= max");
  fails("variants: [{name: a}, {name: a}]\n", "two variants are named 'a'");
  fails("variants: [{name: a, reference: {speed: 1}}]\n", "no figure 'speed'");
  fails("sizes: [1MB]\n", "takes its sizes from the gradient buckets");
  fails("algo: nosuch\n", "auto");
}

TEST_CASE("HCCL settings from the article reach a training study") {
  namespace fs = std::filesystem;
  collsim::testing::TempDir temp;
  fs::path env = temp / "env.sh";
  std::ofstream(env) << "export HCCL_ALLREDUCE_BUCKET_SIZE=1048576\nexport HCCL_COMM_OVERLAP=1\n"
                        "export HCCL_ALLREDUCE_PIPELINE=1\n";
  auto r = collsim::testing::cli({"run", source("tests/data/training/toy-study.yaml"), "--env-file", env.string(),
                                  "--format", "csv"});
  REQUIRE(r.status == 0);
  CHECK(r.err.find("PyTorch DDP") != std::string::npos);
  collsim::testing::Csv csv = collsim::testing::Csv::parse(r.out);
  REQUIRE(csv.rows.size() == 12);
  for (std::size_t i = 0; i < csv.rows.size(); ++i) {
    CHECK(csv.at(i, "bucket_bytes") == "1048576"); // HCCL_ALLREDUCE_BUCKET_SIZE
    CHECK(csv.at(i, "overlap") == "true");         // HCCL_COMM_OVERLAP
    CHECK(csv.at(i, "pipeline") == "2");           // HCCL_ALLREDUCE_PIPELINE=1: two buckets in flight
    CHECK(csv.at(i, "status") == "ok");
  }
}

TEST_CASE("--trace writes the step: compute, each bucket's AllReduce, link activity") {
  namespace fs = std::filesystem;
  collsim::testing::TempDir temp;
  fs::path trace = temp / "trace.json";
  auto r = collsim::testing::cli({"run", source("tests/data/training/toy-study.yaml"), "--set",
                                  "sweep={training.bucket: [4MB]}", "--set", "variants=[{name: one}]", "--trace",
                                  trace.string()});
  REQUIRE(r.status == 0);
  std::ifstream in(trace);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("compute (rank 0)") != std::string::npos);
  CHECK(text.find("backward block.3") != std::string::npos);
  CHECK(text.find("bucket 3: ring") != std::string::npos);
  CHECK(text.find("(HCCS)") != std::string::npos);
}
