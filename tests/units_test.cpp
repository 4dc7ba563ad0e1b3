#include <doctest/doctest.h>

#include "sim/core/units.h"

using namespace collsim;
using namespace collsim::literals;

TEST_CASE("sizes parse in binary and decimal units") {
  CHECK(parseBytes("4096") == 4096);
  CHECK(parseBytes("64KiB") == 64_KiB);
  CHECK(parseBytes("1MiB") == 1_MiB);
  CHECK(parseBytes("1GiB") == 1_GiB);
  CHECK(parseBytes("1MB") == 1'000'000);
  CHECK(parseBytes("1GB") == 1'000'000'000);
  CHECK(parseBytes("1.5KiB") == 1536);
  CHECK_THROWS_AS(parseBytes("64Kib"), UnitError);
  CHECK_THROWS_AS(parseBytes("MiB"), UnitError);
  CHECK_THROWS_AS(parseBytes("0.3B"), UnitError);
  CHECK_THROWS_AS(parseBytes("-1"), UnitError);
}

TEST_CASE("bandwidth: GB/s is 1e9 bytes, Gbps 1e9 bits") {
  CHECK(parseBandwidth("12GB/s") == 12_GBps);
  CHECK(parseBandwidth("100Gbps") == 100_Gbps);
  CHECK(parseBandwidth("100Gbps") == 12'500'000'000ULL);
  CHECK(parseBandwidth("12.5GB/s") == 12'500'000'000ULL);
  CHECK_THROWS_AS(parseBandwidth("12"), UnitError);
  CHECK_THROWS_AS(parseBandwidth("0GB/s"), UnitError);
  CHECK_THROWS_AS(parseBandwidth("12GiB/s"), UnitError);
}

TEST_CASE("time needs a unit, except zero") {
  CHECK(parseTime("1us") == 1_us);
  CHECK(parseTime("500ns") == 500_ns);
  CHECK(parseTime("2ms") == 2_ms);
  CHECK(parseTime("1.5us") == 1'500'000);
  CHECK(parseTime("0") == 0);
  CHECK_THROWS_AS(parseTime("5"), UnitError);
  CHECK_THROWS_AS(parseTime("5 sec"), UnitError);
}

TEST_CASE("serialization time rounds up to whole picoseconds") {
  // 1 byte at 12 GB/s = 83.33 ps -> 84 ps; 12 bytes exactly 1000 ps.
  CHECK(serializationTime(1, 12_GBps) == 84);
  CHECK(serializationTime(12, 12_GBps) == 1000);
  // 1 GiB at 12 GB/s does not overflow: 1073741824 / 12e9 s = 89478485.33 us.
  CHECK(serializationTime(1_GiB, 12_GBps) == 89'478'485'334);
}

TEST_CASE("formatting is short and exact") {
  CHECK(formatBytes(64_KiB) == "64KiB");
  CHECK(formatBytes(1000) == "1000B");
  CHECK(formatBandwidth(100_Gbps) == "100Gbps");
  CHECK(formatBandwidth(12_GBps) == "12GB/s");
  CHECK(formatTime(1_us) == "1us");
}
