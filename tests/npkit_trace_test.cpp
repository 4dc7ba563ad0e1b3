// NPKit traces of NCCL's primitives: the reader, the fit of a step's fixed
// cost against values worked out by hand, the errors and their places, and
// the command that prints the --set.
#include <doctest/doctest.h>

#include "test_support.h"

#include "sim/core/input_error.h"
#include "sim/validation/npkit_trace.h"

using namespace collsim;
using collsim::testing::cli;
using collsim::testing::CliResult;
using collsim::testing::contains;
using collsim::testing::source;

namespace {

// A begin and its end on rank 0, lane 1.
std::string call(const std::string& kind, double bytes, double start, double end) {
  return R"({"ph": "B", "ts": )" + std::to_string(start) + R"(, "pid": 0, "tid": 1, "name": "NPKIT_EVENT_)" + kind +
         R"(_ENTRY", "cat": "GPU", "args": {"size_0": )" + std::to_string(bytes) + "}},\n" +
         R"({"ph": "E", "ts": )" + std::to_string(end) + R"(, "pid": 0, "tid": 1, "args": {"size": 0}})";
}

std::string trace(const std::vector<std::string>& events) {
  std::string out = "{\"traceEvents\": [\n";
  for (std::size_t i = 0; i < events.size(); ++i) out += (i ? ",\n" : "") + events[i];
  return out + "\n]}\n";
}

std::string errorOf(const std::string& text) {
  try {
    fitStepCost(parseNpkitTrace(text, "t.json"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

// tests/data/npkit/ring-allreduce-simple.json: a 2-rank ring AllReduce under
// Simple, three chunk sizes (128, 256, 512 KiB); every primitive call takes
// 4 us and its bytes at 80 GB/s (SEND, DIRECT_RECV) or 40 GB/s (the
// reduction, DIRECT_RECV_REDUCE_COPY_SEND); the collective's spans, a
// wait inside each reduction and one proxy send are there too.
TEST_CASE("an NPKit trace's primitives give the fixed cost of a step and each primitive's rate") {
  NpkitTrace t = readNpkitTrace(source("tests/data/npkit/ring-allreduce-simple.json"));
  CHECK(t.ranks == std::vector<int>{0, 1});
  CHECK(t.calls.size() == 31); // 2 ranks x 3 sizes x (1 span + 3 calls + 1 wait), and the proxy's send
  CHECK(t.unclosed == 0);
  StepCostFit fit = fitStepCost(t);
  CHECK(fit.fixedMicroseconds == doctest::Approx(4.0).epsilon(1e-9));
  CHECK(fit.calls == 18);
  REQUIRE(fit.primitives.size() == 3);
  for (const PrimitiveFit& p : fit.primitives) {
    CAPTURE(p.kind);
    CHECK(p.calls == 6);
    CHECK(p.minBytes == 131072);
    CHECK(p.maxBytes == 524288);
    CHECK(p.gbPerSecond == doctest::Approx(p.kind == "DIRECT_RECV_REDUCE_COPY_SEND" ? 40.0 : 80.0).epsilon(1e-9));
    CHECK(p.rmsMicroseconds < 1e-6);
  }
  using Count = std::pair<std::string, std::size_t>;
  CHECK(fit.notFitted == std::vector<Count>{{"ALL_REDUCE_RING", 6}, {"NET_SEND", 1}, {"PRIM_SIMPLE_WAIT_PEER", 6}});
}

// SEND at two sizes pins the fixed part: 2 + 1000 / 100 = 12 us and
// 2 + 2000 / 100 = 22 us give 2 us and 100 bytes/us; RECV at one size then
// takes its rate from what is left: (12 - 2) / 500 us per byte = 50 bytes/us
// = 0.05 GB/s. A third SEND 1 us off the line moves the fixed part by a
// third of it at most.
TEST_CASE("the fixed part is shared: a primitive of one size takes its rate from it") {
  StepCostFit fit = fitStepCost(parseNpkitTrace(
      trace({call("SEND", 1000, 0, 12), call("SEND", 2000, 20, 42), call("RECV", 500, 50, 62)}), "t.json"));
  CHECK(fit.fixedMicroseconds == doctest::Approx(2.0).epsilon(1e-12));
  REQUIRE(fit.primitives.size() == 2);
  CHECK(fit.primitives[0].kind == "SEND");
  CHECK(fit.primitives[0].gbPerSecond == doctest::Approx(0.1).epsilon(1e-12));
  CHECK(fit.primitives[1].gbPerSecond == doctest::Approx(0.05).epsilon(1e-12));
  StepCostFit noisy = fitStepCost(parseNpkitTrace(
      trace({call("SEND", 1000, 0, 12), call("SEND", 2000, 20, 42), call("SEND", 1500, 50, 68), call("RECV", 500, 80, 92)}),
      "t.json"));
  CHECK(noisy.fixedMicroseconds > 2.0);
  CHECK(noisy.fixedMicroseconds < 2.0 + 1.0 / 3 + 1e-9);
  CHECK(noisy.primitives[0].rmsMicroseconds > 0);
}

TEST_CASE("an NPKit trace it cannot read is refused with its place") {
  CHECK(contains(errorOf("{\"traceEvents\": [1, 2"), "t.json: byte "));
  CHECK(contains(errorOf("{\"traceEvents\": [1e999]}"), "t.json: byte 18: not readable JSON"));
  CHECK(contains(errorOf(trace({R"({"ph": "E", "ts": 1, "pid": 0, "tid": 1})"})),
                 "t.json: traceEvents[0]: an end (E) on rank 0, lane 1 that no begin opened"));
  CHECK(contains(errorOf(trace({call("SEND", 10, 5, 4)})), "t.json: traceEvents[1]: ends at 4"));
  CHECK(contains(errorOf(trace({R"({"ph": "B", "ts": 1, "pid": 0, "tid": 1, "name": "NPKIT_EVENT_SEND_ENTRY"})"})),
                 "traceEvents[0]: a begin with no \"args\""));
  CHECK(contains(errorOf(trace({R"({"ph": "B", "ts": 1, "pid": -1, "tid": 1, "name": "NPKIT_EVENT_SEND_ENTRY"})"})),
                 "traceEvents[0]: \"pid\" is not a whole number"));
  CHECK(contains(errorOf(trace({R"({"ph": "B", "ts": 1, "pid": 0, "tid": 1, "name": "ProfilerStep#1"})"})),
                 "traceEvents[0]: 'ProfilerStep#1' is not an NPKit event"));
  CHECK(contains(errorOf(trace({R"({"ph": "X", "ts": 1, "dur": 2, "pid": 0, "tid": 1, "name": "kernel"})"})),
                 "t.json: no NPKit event"));
  CHECK(contains(errorOf(trace({call("ALL_REDUCE_RING", 10, 0, 4)})), "t.json: no call of NCCL's primitives"));
  CHECK(contains(errorOf(trace({call("SEND", 1000, 0, 12), call("SEND", 1000, 20, 32)})), "move one size"));
  CHECK(contains(errorOf(std::string(100, '[') + std::string(100, ']')), "nested deeper than 64"));
  // A time before the trace's start (it once fitted a fixed cost of -177 us), and calls whose time falls as
  // their bytes grow: no fixed cost below zero.
  CHECK(contains(errorOf(trace({call("SEND", 1000, 10, 14), call("SEND", 2000, -50, 16)})),
                 "t.json: traceEvents[2]: \"ts\" -50.000000 is negative"));
  CHECK(contains(errorOf(trace({call("SEND", 1000, 0, 1), call("SEND", 2000, 20, 30)})),
                 "t.json: the calls fit a fixed cost of -8.000000 us a step, below zero"));
}

TEST_CASE("collsim npkit prints the fit and the --set of the protocol's step cost") {
  const std::string file = source("tests/data/npkit/ring-allreduce-simple.json");
  CliResult text = cli({"npkit", file});
  CHECK(text.status == 0);
  CHECK(contains(text.out, "# fixed cost of a step: 4.000 us over 18 calls"));
  CHECK(contains(text.out, "--set library.protocols.Simple.step_overhead=4.000us"));
  CliResult json = cli({"npkit", file, "--format", "json", "--protocol", "LL128"});
  REQUIRE(json.status == 0);
  nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["step_cost_us"].get<double>() == doctest::Approx(4.0));
  CHECK(j["set"] == "library.protocols.LL128.step_overhead=4.000us");
  CHECK(j["primitives"].size() == 3);
  CHECK(cli({"npkit", file, "--protocol", "Fast"}).status == 2);
  CHECK(cli({"npkit", source("tests/data/profiles/kineto-two-steps.json")}).status == 2);
}
