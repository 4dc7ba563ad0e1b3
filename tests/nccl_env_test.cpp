// NCCL environment settings: NCCL_PROTO, NCCL_ALGO, NCCL_MIN/MAX_NCHANNELS
// and NCCL_BUFFSIZE as library overrides, checked by the cluster loader.
#include <doctest/doctest.h>

#include "test_support.h"
#include "sim/config/cluster_config.h"
#include "sim/core/input_error.h"
#include "sim/nccl/nccl_env.h"
#include "sim/validation/compare.h"

using namespace collsim;
using namespace collsim::testing;

namespace {

// On `servers` H100 servers (NVSwitches that reduce), with SHARP in the
// fabric or not.
NcclSettings nccl(std::vector<std::pair<std::string, std::string>> vars, int servers = 2, bool sharp = false) {
  std::vector<EnvSetting> s;
  for (const auto& v : vars) s.push_back({v.first, v.second, "test"});
  return interpretNcclSettings(s, NcclTopology{servers, true, sharp});
}

using Strings = std::vector<std::string>;

} // namespace

TEST_CASE("NCCL variables become library overrides and algorithms") {
  CHECK(nccl({{"NCCL_PROTO", "ll,Simple"}}).overrides == Strings{"library.protocol=LL,Simple"});
  CHECK(nccl({{"NCCL_PROTO", "^LL128"}}).overrides == Strings{"library.protocol=^LL128"});
  CHECK(nccl({{"NCCL_MAX_NCHANNELS", "4"}, {"NCCL_MIN_NCHANNELS", "2"}}).overrides ==
        Strings{"library.channels=4", "library.min_channels=2"});
  // Simple's chunk is half its buffer (4 of NCCL_STEPS = 8 steps).
  CHECK(nccl({{"NCCL_BUFFSIZE", "8388608"}}).overrides == Strings{"library.protocols.Simple.chunk=4194304"});
  CHECK(nccl({{"NCCL_NVLS_CHUNKSIZE", "262144"}}).overrides == Strings{"library.nvls_chunk=262144"});
  CHECK(nccl({{"NCCL_NVLSTREE_MAX_CHUNKSIZE", "32768"}}).overrides == Strings{"library.nvls_tree_max_chunk=32768"});
  CHECK(nccl({{"NCCL_NVLSTREE_MAX_CHUNKSIZE", "-2"}}).overrides.empty()); // NCCL's default: its rule
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_NVLSTREE_MAX_CHUNKSIZE", "-1"}}), doctest::Contains("NCCL_NVLSTREE_MAX_CHUNKSIZE=-1"),
                       ConfigError);
  CHECK(nccl({{"NCCL_ALGO", "Ring,Tree"}}).algorithms == Strings{"ring", "tree"});
  // Across servers NCCL runs NVLS only with CollNet (SHARP in the fabric),
  // and NVLSTree across servers only (src/graph/tuning.cc, 2.18-2.28).
  NcclSettings allButRing = nccl({{"NCCL_ALGO", "^ring"}});
  CHECK(allButRing.algorithms == Strings{"tree", "hierpipe:nvls+tree"});
  REQUIRE(allButRing.notices.size() == 1);
  CHECK(contains(allButRing.notices[0], "NCCL turns off NVLS (across servers NCCL runs NVLS only with CollNet"));
  CHECK(nccl({{"NCCL_ALGO", "^ring"}}, 2, true).algorithms == Strings{"tree", "hierpipe:nvls+sharp", "hierpipe:nvls+tree"});
  CHECK(nccl({{"NCCL_ALGO", "Ring,NVLSTree"}}).algorithms == Strings{"ring", "hierpipe:nvls+tree"});
  CHECK(nccl({{"NCCL_ALGO", "Ring,NVLSTree"}}, 1).algorithms == Strings{"ring"});
  CHECK(nccl({{"NCCL_ALGO", "NVLS"}}, 1).algorithms == Strings{"nvls"});
  CHECK(nccl({{"NCCL_ALGO", "NVLS"}}, 4, true).algorithms == Strings{"hierpipe:nvls+sharp"});
  NcclSettings partly = nccl({{"NCCL_ALGO", "Ring,CollNetDirect"}, {"NCCL_DEBUG", "INFO"}, {"HCCL_BUFFSIZE", "200"}});
  CHECK(partly.algorithms == Strings{"ring"});
  REQUIRE(partly.notices.size() == 2); // HCCL_* is not NCCL's to note
  CHECK(partly.notices[0].find("not modelled, left out: CollNetDirect") != std::string::npos);
  CHECK(partly.notices[1].find("no effect on simulated time") != std::string::npos);
}

TEST_CASE("bad NCCL values are errors naming the variable") {
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_PROTO", "LL,Fast"}}), doctest::Contains("test: NCCL_PROTO=LL,Fast: 'Fast'"), ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_ALGO", "Butterfly"}}), doctest::Contains("not an NCCL algorithm"), ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_ALGO", "CollNetChain"}}), doctest::Contains("leaves nothing"), ConfigError);
  // NVLS alone across servers without SHARP: NCCL 2.20 on fails the call.
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_ALGO", "NVLS"}}), doctest::Contains("NVLS (across servers NCCL runs NVLS only with CollNet"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_ALGO", "NVLSTree"}}, 1), doctest::Contains("NCCL runs NVLSTree across servers only"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_MAX_NCHANNELS", "0"}}), doctest::Contains("1..256"), ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_MAX_NCHANNELS", "4x"}}), doctest::Contains("1..256"), ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_BUFFSIZE", "4MiB"}}), doctest::Contains("whole number of bytes"), ConfigError);
  CHECK_THROWS_WITH_AS(nccl({{"NCCL_NVLS_CHUNKSIZE", "-1"}}), doctest::Contains("NCCL_NVLS_CHUNKSIZE=-1"), ConfigError);
}

TEST_CASE("a protocol list limits the protocols each size may take") {
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  CHECK_THROWS_WITH_AS(loadClusterFile(h100, {"library.protocol=LL,Fast"}), doctest::Contains("no protocol Fast"), ConfigError);
  CHECK_THROWS_WITH_AS(loadClusterFile(h100, {"library.protocol=^LL,LL128,Simple"}), doctest::Contains("no protocol"),
                       ConfigError);
  MeasuredCurve curve = readMeasuredCurve(source("tests/data/measured/h100-2x8-ib400-nccl2.26.txt"));
  for (const char* list : {"^LL", "LL", "LL128,Simple"}) {
    ClusterSetup setup = loadClusterFile(h100, {std::string("library.protocol=") + list, "library.channels=4"});
    Comparison c = compareWithMeasured(curve, Collective::AllReduce, setup, {});
    CAPTURE(list);
    for (const auto& point : c.points) {
      CHECK(point.channels <= 4);
      std::optional<Protocol> kind = point.protocol;
      REQUIRE(kind);
      CHECK(setup.library.protocol.has(*kind));
      // "LL" allows LL alone; "^LL" and "LL128,Simple" everything but LL.
      CHECK((std::string(list) == "LL") == (point.protocol == Protocol::LL));
    }
  }
}

TEST_CASE("protocols that leave NVLS out leave it out of the algorithms compared, and refuse it alone") {
  const std::string h100 = source("configs/clusters/h100-2x8-ib400.yaml");
  MeasuredCurve curve = readMeasuredCurve(source("tests/data/measured/h100-2x8-ib400-nccl2.26.txt"));
  ClusterSetup noSimple = loadClusterFile(h100, {"library.protocol=LL128"});
  CompareOptions both;
  both.algorithm = "ring,hierpipe:nvls+ring";
  Comparison c = compareWithMeasured(curve, Collective::AllReduce, noSimple, both);
  CHECK(c.algorithm == "ring");
  for (const auto& point : c.points) CHECK(point.protocol == Protocol::LL128);
  CompareOptions alone;
  alone.algorithm = "hierpipe:nvls+ring";
  CHECK_THROWS_WITH_AS(compareWithMeasured(curve, Collective::AllReduce, noSimple, alone),
                       doctest::Contains("reduces in the network"), InputError);
}
