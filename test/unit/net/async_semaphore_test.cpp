// AsyncSemaphore on its own: fast path, FIFO hand-over, bounded waits, close, frames destroyed
// while parked, and a two-thread stress that never exceeds the cap and ends with every permit back.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include "net/async_semaphore.h"

using namespace rmq::net;
using namespace std::chrono_literals;

namespace {
// Runs `ctx` until `done()` holds (bounded: 10 s of polls).
template <class Done>
bool runUntil(asio::io_context& ctx, Done done) {
  for (int i = 0; i < 1000 && !done(); ++i) {
    ctx.restart();
    ctx.run_for(10ms);
  }
  return done();
}
}  // namespace

TEST_CASE("async semaphore: free permits are taken at once and come back when a Permit dies") {
  auto sem = AsyncSemaphore::make(2);
  auto a = sem->tryAcquire();
  auto b = sem->tryAcquire();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(sem->available() == 0);
  CHECK_FALSE(sem->tryAcquire());
  a.reset();
  CHECK(sem->available() == 1);
  AsyncPermit moved = std::move(*b);  // a moved permit is released once, by its new owner
  b.reset();
  CHECK(sem->available() == 1);
  moved.release();
  moved.release();
  CHECK(sem->available() == 2);
}

TEST_CASE("async semaphore: a timeout of 0 fails at once; a bounded wait gives up and leaves nothing behind") {
  asio::io_context ctx;
  auto sem = AsyncSemaphore::make(1);
  auto held = sem->tryAcquire();
  std::optional<bool> now, later;
  asio::co_spawn(ctx, [&]() -> asio::awaitable<void> {
    now = (co_await sem->acquire(0ms)).has_value();
    later = (co_await sem->acquire(50ms)).has_value();
  }, asio::detached);
  REQUIRE(runUntil(ctx, [&] { return later.has_value(); }));
  CHECK(*now == false);
  CHECK(*later == false);
  CHECK(sem->waiting() == 0);
  held.reset();
  CHECK(sem->available() == 1);
}

TEST_CASE("async semaphore: released permits go to the waiters in the order they came, across threads") {
  asio::io_context ctx;
  auto sem = AsyncSemaphore::make(1);
  auto held = sem->tryAcquire();
  std::vector<int> order;
  std::vector<AsyncPermit> kept;
  for (int i = 0; i < 4; ++i) {
    asio::co_spawn(ctx, [&, i]() -> asio::awaitable<void> {
      auto p = co_await sem->acquire(10s);
      if (!p) co_return;
      order.push_back(i);
      kept.push_back(std::move(*p));
    }, asio::detached);
    REQUIRE(runUntil(ctx, [&] { return sem->waiting() == i + 1; }));
  }
  CHECK_FALSE(sem->tryAcquire());  // a newcomer does not overtake the queue
  std::thread([&] { held.reset(); }).join();  // released on another thread
  REQUIRE(runUntil(ctx, [&] { return order.size() == 1; }));
  for (int i = 1; i < 4; ++i) {
    std::thread([&] { kept.erase(kept.begin()); }).join();
    REQUIRE(runUntil(ctx, [&] { return order.size() == size_t(i + 1); }));
  }
  CHECK(order == std::vector<int>{0, 1, 2, 3});
  kept.clear();
  CHECK(sem->available() == 1);
  CHECK(sem->waiting() == 0);
}

TEST_CASE("async semaphore: close wakes the waiters without a permit; held permits still come back") {
  asio::io_context ctx;
  auto sem = AsyncSemaphore::make(1);
  auto held = sem->tryAcquire();
  int woken = 0, granted = 0;
  for (int i = 0; i < 3; ++i)
    asio::co_spawn(ctx, [&]() -> asio::awaitable<void> {
      auto p = co_await sem->acquire(10s);
      ++woken;
      if (p) ++granted;
    }, asio::detached);
  REQUIRE(runUntil(ctx, [&] { return sem->waiting() == 3; }));
  sem->close();
  REQUIRE(runUntil(ctx, [&] { return woken == 3; }));
  CHECK(granted == 0);
  CHECK(sem->closed());
  held.reset();
  CHECK(sem->available() == 1);
  CHECK_FALSE(sem->tryAcquire());  // closed: nothing more is handed out
}

TEST_CASE("async semaphore: a waiter whose io_context is destroyed leaves the queue and returns a permit granted meanwhile") {
  auto sem = AsyncSemaphore::make(1);
  auto held = sem->tryAcquire();
  {
    asio::io_context ctx;
    asio::co_spawn(ctx, [&]() -> asio::awaitable<void> { auto p = co_await sem->acquire(10s); }, asio::detached);
    asio::co_spawn(ctx, [&]() -> asio::awaitable<void> { auto p = co_await sem->acquire(10s); }, asio::detached);
    REQUIRE(runUntil(ctx, [&] { return sem->waiting() == 2; }));
    held.reset();  // granted to the first waiter, which never runs again
    CHECK(sem->waiting() == 1);
  }  // both frames destroyed here, parked
  CHECK(sem->waiting() == 0);
  CHECK(sem->available() == 1);
}

TEST_CASE("async semaphore: two threads hammering a cap of 4 never hold more than 4 and end with all 4 back") {
  auto sem = AsyncSemaphore::make(4);
  std::atomic<int> holding{0}, maxHolding{0}, done{0}, failed{0};
  constexpr int kPerThread = 200, kCoroutines = 8;
  auto worker = [&](asio::io_context& ctx) -> asio::awaitable<void> {
    for (int i = 0; i < kPerThread; ++i) {
      auto p = co_await sem->acquire(10s);
      if (!p) {
        ++failed;
        continue;
      }
      int now = ++holding;
      int seen = maxHolding.load();
      while (now > seen && !maxHolding.compare_exchange_weak(seen, now)) {
      }
      // Hold it across a suspension so the other thread's releases hand permits to our waiters.
      co_await asio::post(ctx, asio::use_awaitable);
      --holding;
    }
    ++done;
  };
  asio::io_context c1, c2;
  for (int k = 0; k < kCoroutines; ++k) {
    asio::co_spawn(c1, worker(c1), asio::detached);
    asio::co_spawn(c2, worker(c2), asio::detached);
  }
  std::thread t1([&] { c1.run_for(30s); }), t2([&] { c2.run_for(30s); });
  t1.join();
  t2.join();
  CHECK(done == 2 * kCoroutines);
  CHECK(failed == 0);
  CHECK(maxHolding <= 4);
  CHECK(sem->available() == 4);
  CHECK(sem->waiting() == 0);
}
