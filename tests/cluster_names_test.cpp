// Cluster files name their links generically (scale_up, scale_out) or by
// Ascend's names (hccs, roce), which stay as aliases: both load the same
// cluster, --set reaches a section under either name, and descriptions say
// what the file calls its links.
#include <doctest/doctest.h>

#include "sim/config/cluster_config.h"
#include "sim/scenario/scenario.h"
#include "test_support.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

const char* kAscend = "name: c\nservers: 2\ndevices: 4\nhccs: {shape: ring, bandwidth: 12GB/s, latency: 1us}\n"
                      "roce: {bandwidth: 100Gbps, latency: 2us}\n";
const char* kGeneric = "name: c\nservers: 2\ndevices: 4\nscale_up: {shape: ring, bandwidth: 12GB/s, latency: 1us}\n"
                       "scale_out: {bandwidth: 100Gbps, latency: 2us}\n";
const char* kNamed = "name: c\nservers: 2\ndevices: 4\n"
                     "scale_up: {name: NVLink, shape: ring, bandwidth: 12GB/s, latency: 1us}\n"
                     "scale_out: {name: InfiniBand, bandwidth: 100Gbps, latency: 2us}\n";

} // namespace

TEST_CASE("scale_up and scale_out are hccs and roce under generic names") {
  TempDir dir;
  ClusterSetup ascend = loadClusterFile(dir.write("a.yaml", kAscend), {});
  ClusterSetup generic = loadClusterFile(dir.write("g.yaml", kGeneric), {});
  ClusterSetup named = loadClusterFile(dir.write("n.yaml", kNamed), {});
  REQUIRE(ascend.cluster.links.size() == generic.cluster.links.size());
  for (std::size_t i = 0; i < ascend.cluster.links.size(); ++i) {
    CHECK(ascend.cluster.links[i].tier == generic.cluster.links[i].tier);
    CHECK(ascend.cluster.links[i].params.bandwidth == generic.cluster.links[i].params.bandwidth);
    CHECK(ascend.cluster.links[i].params.latency == generic.cluster.links[i].params.latency);
  }
  CHECK(contains(ascend.cluster.description, "HCCS ring 12GB/s, a RoCE NIC per device"));
  CHECK(contains(generic.cluster.description, "scale-up ring 12GB/s, a scale-out NIC per device"));
  CHECK(contains(named.cluster.description, "NVLink ring 12GB/s, an InfiniBand NIC per device"));

  // --set reaches the section under either name.
  for (const std::string& file : {dir / "a.yaml", dir / "g.yaml"})
    for (std::string set : {"hccs.bandwidth=24GB/s", "scale_up.bandwidth=24GB/s"}) {
      CAPTURE(file);
      CAPTURE(set);
      ClusterSetup s = loadClusterFile(file, {set, "roce.latency=3us", "scale_out.bandwidth=200Gbps"});
      CHECK(contains(s.cluster.description, " ring 24GB/s"));
      CHECK(contains(s.cluster.description, "at 200Gbps"));
    }
  // So do a scenario's keys and its sweeps.
  std::string study = dir.write("s.yaml", std::string("op: allreduce\nalgo: ring\nsizes: [1MiB]\ncluster: g.yaml\n"
                                                      "sweep: {cluster.hccs.bandwidth: [6GB/s, 24GB/s]}\n"));
  std::vector<Scenario> points = loadStudyFile(study, {"cluster.roce.latency=5us"});
  REQUIRE(points.size() == 2);
  CHECK(contains(points[0].cluster.description, "scale-up ring 6GB/s"));
  CHECK(contains(points[1].cluster.description, "scale-up ring 24GB/s"));

  // One name per section.
  CHECK_THROWS_WITH_AS(loadClusterFile(dir.write("both.yaml", std::string(kGeneric) + "hccs: {shape: ring}\n"), {}),
                       doctest::Contains("'scale_up' or its alias 'hccs', not both"), ConfigError);
  CHECK_THROWS_WITH_AS(loadClusterFile(dir.write("none.yaml", "name: c\ndevices: 4\n"), {}),
                       doctest::Contains("missing required key 'scale_up' (or its alias 'hccs')"), ConfigError);
}
