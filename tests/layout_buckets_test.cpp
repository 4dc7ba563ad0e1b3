// A parallel layout's gradient buckets follow plain data parallelism's
// rules: the copy into the bucket's buffer and back, a collective on
// several streams, HCCL's loops over its buffer, the selector's pick per
// bucket size. Each against the collective alone on an idle cluster.
//
// The setup: 2 Atlas servers (HCCS ring of 8, a RoCE NIC per device),
// pp 2 x dp 8, so that stage s's DP group is server s (ranks 8s..8s+7)
// and its buckets move over that server's HCCS ring only; the pipeline's
// sends go through the NICs. Without overlap a stage's buckets start
// after its whole backward, one at a time.
#include <doctest/doctest.h>

#include <cstdlib>

#include "test_support.h"

#include "algorithms/core/registry.h"
#include "sim/config/config_node.h"
#include "sim/config/model_config.h"
#include "sim/run/simulate.h"
#include "sim/workload/step_simulation.h"

using namespace collsim;
using namespace collsim::literals;

namespace {

ModelSpec decoder() {
  std::string yaml = "{name: small, transformer: {layers: 8, hidden: 256, heads: 4, ffn: 1024, vocabulary: 1, "
                     "sequence: 64, recomputation: none}, "
                     "precision: {weights: 4, master_weights: 0, gradients: 4, optimizer_state: 8}, "
                     "micro_batch: 1, compute: {utilization: 0.5, backward_factor: 2}}";
  return loadModel(ConfigNode(YAML::Load(yaml), std::make_shared<ConfigOrigins>("small.yaml")));
}

TrainingSpec twoStages(Bytes bucket, bool copies) {
  TrainingSpec t;
  t.model = decoder();
  ParallelLayout l;
  l.pp = 2, l.dp = 8, l.microBatches = 2;
  t.parallel = l;
  t.accumulation = l.microBatches;
  t.bucket = bucket;
  t.overlap = false;
  t.bucketCopy = copies;
  return t;
}

// An AllReduce of `bytes` alone on one Atlas server (what each stage's DP group is).
Time alone(const std::string& algorithm, Bytes bytes, Bytes loop = 0) {
  AlgorithmEntry e = *findAlgorithm(Collective::AllReduce, algorithm);
  RunRequest req{Collective::AllReduce, &e, DataType::Float32, bytes, 1_MiB, false};
  req.loopBytes = loop;
  return simulateCollective(collsim::testing::atlasCluster(1), req).execution.finish;
}

StepOptions picking(const std::string& algorithm) {
  StepOptions o;
  o.algorithm = "auto";
  o.pickAlgorithm = [algorithm](Bytes) { return algorithm; };
  return o;
}

} // namespace

TEST_CASE("a layout's bucket on several streams takes in the step what it takes alone, after its copy in") {
  // dbtree runs its two trees on two streams. One bucket a stage; with
  // copies the collective starts one copy (read and write of the bucket at
  // memory speed) after the gradients are ready.
  const Cluster c = collsim::testing::atlasCluster(2);
  for (bool copies : {false, true}) {
    CAPTURE(copies);
    StepResult r = simulateTrainingStep(c, twoStages(1_GiB, copies), picking("dbtree"));
    REQUIRE(r.buckets.size() == 1);
    const BucketTiming& b = r.buckets[0];
    CHECK(b.algorithm == "dbtree");
    CHECK(b.bytes > decoder().gradientBytes() / 3); // a stage's gradients: 4 of the 8 blocks
    CHECK(b.end - b.start == alone("dbtree", b.bytes));
    CHECK(b.start - b.ready == (copies ? serializationTime(2 * b.bytes, c.device.memoryBandwidth) : 0));
    // Nothing follows the bucket but its copy back, the optimizer and its gather-free end.
    CHECK(r.iteration >= b.end + (copies ? serializationTime(2 * b.bytes, c.device.memoryBandwidth) : 0) + r.optimizer);
  }
}

TEST_CASE("a layout's bucket larger than HCCL's buffer runs in loops of it, and under NCCL whole") {
  const Cluster c = collsim::testing::atlasCluster(2);
  const Bytes stage = simulateTrainingStep(c, twoStages(1_GiB, false), picking("ring")).buckets.at(0).bytes;
  StepOptions o = picking("ring");
  o.hcclBufferSize = stage / 3 / 4 * 4; // three loops and a tail of elements
  // The tail's blocks differ by an element, rank to rank: a fold of the
  // replicas would time them all as replica 0's (10 ns off in 2.7 ms).
  o.symmetry = false;
  StepResult looped = simulateTrainingStep(c, twoStages(1_GiB, false), o);
  REQUIRE(looped.buckets.size() == 1);
  // Alone, the loops are simulated once and repeated (sim/run/simulate.h),
  // rounding each loop's time to the picosecond: within a nanosecond.
  CHECK(std::llabs(looped.buckets[0].end - looped.buckets[0].start - alone("ring", stage, o.hcclBufferSize)) < 1000);
  o.bufferLoops = false;
  StepResult whole = simulateTrainingStep(c, twoStages(1_GiB, false), o);
  CHECK(whole.buckets[0].end - whole.buckets[0].start == alone("ring", stage));
  CHECK(alone("ring", stage) < alone("ring", stage, o.hcclBufferSize));
}

TEST_CASE("a layout's buckets take the selector's algorithm for their size, and a blocking collective refuses streams") {
  const Cluster c = collsim::testing::atlasCluster(2);
  const Bytes stage = simulateTrainingStep(c, twoStages(1_GiB, false), picking("ring")).buckets.at(0).bytes;
  StepOptions o;
  o.algorithm = "auto";
  o.pickAlgorithm = [stage](Bytes bytes) { return bytes * 2 > stage ? "ring" : "rhd"; };
  // Buckets of 60 % of a stage's gradients: a full one, then the other 40 %.
  const Bytes bucket = stage / 5 * 3 / 4 * 4;
  StepResult r = simulateTrainingStep(c, twoStages(bucket, false), o);
  REQUIRE(r.buckets.size() == 2);
  CHECK(r.buckets[0].bytes == bucket);
  CHECK(r.buckets[0].algorithm == "ring");
  CHECK(r.buckets[1].bytes * 2 < stage);
  CHECK(r.buckets[1].algorithm == "rhd");
  // The TP collectives run inline between the compute: one stream only.
  TrainingSpec tp = twoStages(1_GiB, false);
  tp.parallel->tp = 2, tp.parallel->dp = 4;
  StepOptions all;
  all.algorithm = "dbtree";
  CHECK_THROWS_WITH_AS(simulateTrainingStep(c, tp, all),
                       doctest::Contains("dbtree runs on several streams; a parallel layout's allreduce runs inline"),
                       InputError);
}
