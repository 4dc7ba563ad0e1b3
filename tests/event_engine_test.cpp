#include <doctest/doctest.h>

#include <vector>

#include "sim/core/event_engine.h"

using namespace collsim;

namespace {
struct Recorder final : EventHandler {
  EventEngine* engine;
  std::vector<std::pair<Time, std::uint64_t>> seen;
  void onEvent(std::uint64_t arg) override { seen.emplace_back(engine->now(), arg); }
};
} // namespace

TEST_CASE("events fire in time order, FIFO among equal times") {
  EventEngine e;
  Recorder r;
  r.engine = &e;
  e.schedule(30, &r, 1);
  e.schedule(10, &r, 2);
  e.schedule(30, &r, 3);
  e.schedule(10, &r, 4);
  e.schedule(20, &r, 5);
  CHECK(e.run() == 30);
  std::vector<std::pair<Time, std::uint64_t>> want = {{10, 2}, {10, 4}, {20, 5}, {30, 1}, {30, 3}};
  CHECK(r.seen == want);
  CHECK(e.eventsProcessed() == 5);
}

TEST_CASE("an event in the past is refused: time never runs backwards") {
  EventEngine e;
  struct Back final : EventHandler {
    EventEngine* engine;
    bool threw = false;
    void onEvent(std::uint64_t) override {
      try {
        engine->schedule(engine->now() - 1, this, 0);
      } catch (const std::logic_error&) {
        threw = true;
      }
    }
  } b;
  b.engine = &e;
  e.schedule(100, &b, 0);
  e.run();
  CHECK(b.threw);
}

TEST_CASE("two engines are independent") {
  EventEngine a, b;
  Recorder ra, rb;
  ra.engine = &a;
  rb.engine = &b;
  a.schedule(5, &ra, 1);
  b.schedule(7, &rb, 2);
  a.run();
  CHECK(a.now() == 5);
  CHECK(b.now() == 0);
  b.run();
  CHECK(rb.seen.size() == 1);
}
