#include <doctest/doctest.h>

#include <set>
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

namespace {
// Events that schedule more events, at delays drawn from a fixed sequence:
// none (same time), a few picoseconds, or far ahead (a jump over many
// buckets of the radix heap). Each fired event is recorded.
struct Spawner final : EventHandler {
  EventEngine* engine;
  std::uint64_t state = 12345, next = 1;
  std::vector<std::pair<Time, std::uint64_t>> seen;
  std::uint64_t draw() { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; }
  Time delay() {
    std::uint64_t kind = draw() % 4;
    return kind == 0 ? 0 : kind == 1 ? Time(draw() % 8) : kind == 2 ? Time(draw() % 5000) : Time(draw() % (1ULL << 40));
  }
  void onEvent(std::uint64_t arg) override {
    seen.emplace_back(engine->now(), arg);
    if (next < 20000)
      for (std::uint64_t k = draw() % 3; k > 0; --k) engine->scheduleAfter(delay(), this, next++);
  }
};
} // namespace

TEST_CASE("events fire in (time, scheduling order) against a sorted-set oracle, through runUntil pauses") {
  // The oracle replays the same draws with a std::set of (time, number):
  // numbers are handed out in scheduling order, so the set's order is the
  // order the engine must keep.
  EventEngine e;
  Spawner s;
  s.engine = &e;
  for (std::uint64_t i = 0; i < 50; ++i) e.schedule(Time(s.draw() % 100), &s, s.next++);
  for (Time until = 1000; e.eventsProcessed() < 40000 && until < (Time(1) << 50); until *= 3) e.runUntil(until);
  e.run();

  std::set<std::pair<Time, std::uint64_t>> queue;
  std::uint64_t state = 12345, next = 1;
  auto draw = [&] { return state = state * 6364136223846793005ULL + 1442695040888963407ULL, state >> 33; };
  auto delay = [&] {
    std::uint64_t kind = draw() % 4;
    return kind == 0 ? 0 : kind == 1 ? Time(draw() % 8) : kind == 2 ? Time(draw() % 5000) : Time(draw() % (1ULL << 40));
  };
  for (std::uint64_t i = 0; i < 50; ++i) queue.insert({Time(draw() % 100), next++});
  std::vector<std::pair<Time, std::uint64_t>> want;
  while (!queue.empty()) {
    auto [t, n] = *queue.begin();
    queue.erase(queue.begin());
    want.emplace_back(t, n);
    if (next < 20000)
      for (std::uint64_t k = draw() % 3; k > 0; --k) queue.insert({t + delay(), next++});
  }
  REQUIRE(want.size() > 10000);
  CHECK(s.seen == want);
}
