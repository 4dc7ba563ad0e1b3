#include <doctest/doctest.h>

#include "sim/network/routing.h"
#include "topologies/server_shapes.h"

using namespace collsim;
using namespace collsim::literals;

namespace {
ServerParams params(int devices, HccsShape shape) {
  ServerParams p;
  p.devices = devices;
  p.shape = shape;
  p.hccs = {12_GBps, 1_us};
  p.interGroup = {8_GBps, 2_us};
  return p;
}
} // namespace

TEST_CASE("server shapes have the links their names promise") {
  CHECK(buildServer(params(8, HccsShape::Ring)).links.size() == 8);
  CHECK(buildServer(params(2, HccsShape::Ring)).links.size() == 1);
  CHECK(buildServer(params(1, HccsShape::Ring)).links.empty());
  CHECK(buildServer(params(8, HccsShape::Mesh)).links.size() == 28);
  Cluster twoByFour = buildServer(params(8, HccsShape::TwoGroupsOfFour));
  CHECK(twoByFour.ranks() == 8);
  CHECK(twoByFour.nodes.size() == 10); // 8 devices + 2 PCIe switches
  CHECK(twoByFour.links.size() == 2 * 6 + 8 + 1);
}

TEST_CASE("routes take the fewest hops") {
  Cluster c = buildServer(params(8, HccsShape::TwoGroupsOfFour));
  Routing routing(c);
  CHECK(routing.route(c.rankNode[0], c.rankNode[3]).hops == 1); // same group: direct HCCS
  CHECK(routing.route(c.rankNode[0], c.rankNode[5]).hops == 3); // dev -> pcie0 -> pcie1 -> dev
  Cluster r = buildServer(params(8, HccsShape::Ring));
  Routing ringRoutes(r);
  CHECK(ringRoutes.route(0, 4).hops == 4);
  CHECK(ringRoutes.route(0, 7).hops == 1);
}

TEST_CASE("impossible topologies are rejected with a reason") {
  auto p = params(6, HccsShape::TwoGroupsOfFour);
  CHECK_THROWS_WITH_AS(buildServer(p), doctest::Contains("exactly 8 devices"), TopologyError);
  auto custom = params(4, HccsShape::Custom);
  custom.customLinks = {{0, 1}, {2, 3}};
  CHECK_THROWS_WITH_AS(buildServer(custom), doctest::Contains("disconnected"), TopologyError);
  custom.customLinks = {{0, 0}};
  CHECK_THROWS_AS(buildServer(custom), TopologyError);
  auto zero = params(4, HccsShape::Ring);
  zero.hccs.bandwidth = 0;
  CHECK_THROWS_WITH_AS(buildServer(zero), doctest::Contains("bandwidth"), TopologyError);
}

TEST_CASE("a switch-shaped server: one link per device to a lossless switch, every pair two hops apart") {
  ServerParams p;
  p.devices = 8;
  p.shape = HccsShape::Switch;
  p.hccs = {300_GBps, 500'000};
  Cluster c = buildServer(p);
  CHECK(c.nodes.size() == 9);
  CHECK(c.links.size() == 8);
  CHECK(c.nodes.back().kind == NodeKind::ServerSwitch);
  CHECK(c.nodes.back().server == 0);
  Routing r(c);
  for (int b = 1; b < 8; ++b) CHECK(r.route(c.rankNode[0], c.rankNode[b]).hops == 2);
}

TEST_CASE("a link list may join a pair twice (two NVLinks): bonded into one link of twice the bandwidth, one hop") {
  ServerParams p;
  p.devices = 3;
  p.shape = HccsShape::Custom;
  p.hccs = {25_GBps, 500'000};
  p.customLinks = {{0, 1}, {0, 1}, {1, 2}};
  Cluster c = buildServer(p);
  REQUIRE(c.links.size() == 2);
  CHECK(c.links[0].params.bandwidth == 50_GBps);
  CHECK(c.links[1].params.bandwidth == 25_GBps);
  Routing r(c);
  CHECK(r.route(c.rankNode[0], c.rankNode[1]).hops == 1);
  CHECK(r.route(c.rankNode[0], c.rankNode[2]).hops == 2);
}
