// AppendThread: jobs on the append thread, answered on the submitter's executor; runWaiting lets
// the submitter wait for a job in place on an idle thread and suspend otherwise.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <chrono>
#include <thread>

#include "store/append_thread.h"

using namespace rmq::store;
using namespace std::chrono_literals;

namespace {

// Waits (bounded) until the thread sleeps or spins for jobs, so that runWaiting submits.
bool submitWhenIdle(AppendThread& t, AppendTicket& ticket, AppendWork work, std::chrono::nanoseconds spin,
                    bool& done) {
  bool submitted = false;
  for (int i = 0; i < 2000 && !submitted; ++i) {
    done = t.runWaiting(ticket, work, spin, submitted);
    if (!submitted) std::this_thread::sleep_for(1ms);
  }
  return submitted;
}

// Where and whether a submitter coroutine was resumed.
struct Resumed {
  bool yes = false;
  bool onIo = false;
};

// Spawns on `io` a coroutine that co_awaits `start()` (an append thread's awaitable) and records
// its resumption in `r`.
template <class Start>
void awaitOn(asio::io_context& io, Start start, Resumed& r) {
  asio::co_spawn(
      io,
      [&io, start, &r]() -> asio::awaitable<void> {
        co_await start();
        r.yes = true;
        r.onIo = io.get_executor().running_in_this_thread();
      },
      asio::detached);
}

// Whether runWaiting declined at once: false with nothing submitted (the caller must use run()).
bool declines(AppendThread& t, const AppendWork& work) {
  AppendTicket ticket;
  bool submitted = true;
  return !t.runWaiting(ticket, work, 1ms, submitted) && !submitted;
}

// Runs `work` by run() from a coroutine on an io_context of this thread; where it was resumed.
Resumed runAwaited(AppendThread& t, const AppendWork& work) {
  asio::io_context io;
  Resumed resumed;
  awaitOn(io, [&] { return t.run(work, asio::use_awaitable); }, resumed);
  io.run();
  return resumed;
}

}  // namespace

TEST_CASE("run: the job runs on the append thread and answers on the submitter's executor") {
  AppendThread t;
  t.start();
  std::thread::id ranOn;
  auto job = [&] { ranOn = std::this_thread::get_id(); };
  const AppendWork work(job);
  const Resumed resumed = runAwaited(t, work);
  CHECK(resumed.yes);
  CHECK(resumed.onIo);
  CHECK(ranOn != std::this_thread::get_id());  // on the append thread
  t.stop();
}

TEST_CASE("runWaiting: an idle thread's job is waited for in place, on the append thread, with nothing posted") {
  AppendThread t;
  t.start();
  std::thread::id ranOn;
  auto job = [&] { ranOn = std::this_thread::get_id(); };
  const AppendWork work(job);
  AppendTicket ticket;
  bool done = false;
  REQUIRE(submitWhenIdle(t, ticket, work, 10s, done));
  CHECK(done);
  CHECK(ranOn != std::this_thread::get_id());
  t.stop();
}

TEST_CASE("runWaiting: a job slower than the wait is awaited on the executor; a busy thread is not waited for") {
  AppendThread t;
  t.start();
  std::atomic<bool> release{false}, ran{false};
  auto slow = [&] {  // a stalled append
    for (int i = 0; i < 10000 && !release; ++i) std::this_thread::sleep_for(1ms);
    ran = true;
  };
  const AppendWork slowWork(slow);
  AppendTicket ticket;
  bool done = true;
  REQUIRE(submitWhenIdle(t, ticket, slowWork, 2ms, done));
  CHECK_FALSE(done);  // still held by the stall: the submitter goes on serving

  // While it stalls the thread is not idle: a second submitter is told to queue the usual way.
  auto other = [] {};
  const AppendWork otherWork(other);
  CHECK(declines(t, otherWork));

  asio::io_context io;
  Resumed resumed;
  awaitOn(io, [&] { return t.awaitTicket(ticket, asio::use_awaitable); }, resumed);
  io.poll();  // the coroutine runs up to its suspension on the ticket
  CHECK_FALSE(resumed.yes);
  release = true;
  io.run();  // the append thread posts the ticket's completion once the job ran
  CHECK(ran);
  CHECK(resumed.yes);
  CHECK(resumed.onIo);
  t.stop();
}

TEST_CASE("awaitTicket after the job already ran resumes the submitter by a post, not inline") {
  AppendThread t;
  t.start();
  std::atomic<bool> ran{false};
  auto job = [&] {
    std::this_thread::sleep_for(5ms);  // longer than the in-place wait below
    ran = true;
  };
  const AppendWork work(job);
  AppendTicket ticket;
  bool done = true;
  REQUIRE(submitWhenIdle(t, ticket, work, 0ns, done));
  if (!done) {
    for (int i = 0; i < 2000 && !ran; ++i) std::this_thread::sleep_for(1ms);
    std::this_thread::sleep_for(5ms);  // past the job's end: the thread marked the ticket done
    asio::io_context io;
    Resumed resumed;
    awaitOn(io, [&] { return t.awaitTicket(ticket, asio::use_awaitable); }, resumed);
    io.run();
    CHECK(resumed.yes);
  }
  CHECK(ran);
  t.stop();
}

TEST_CASE("without a started thread, runWaiting declines and run() runs the job on the caller's thread") {
  AppendThread t;  // not started (tests, tools)
  std::thread::id ranOn;
  auto job = [&] { ranOn = std::this_thread::get_id(); };
  const AppendWork work(job);
  // Not started: not idle either, so the caller is told to use run(), which runs it in place.
  CHECK(declines(t, work));
  const Resumed resumed = runAwaited(t, work);
  CHECK(resumed.yes);
  CHECK(ranOn == std::this_thread::get_id());
}

TEST_CASE("idle spin off: runWaiting declines though the thread is idle, run() still appends there") {
  AppendThread t;
  t.start();
  t.setIdleSpin(false);
  CHECK_FALSE(t.idleSpin());
  std::thread::id ranOn;
  int runs = 0;
  auto job = [&] {
    ranOn = std::this_thread::get_id();
    ++runs;
  };
  const AppendWork work(job);
  for (int i = 0; i < 20; ++i) {  // idle most of these times, and never waited for in place
    CHECK(declines(t, work));
    std::this_thread::sleep_for(1ms);
  }
  const Resumed resumed = runAwaited(t, work);
  CHECK(resumed.yes);
  CHECK(resumed.onIo);
  CHECK(runs == 1);
  CHECK(ranOn != std::this_thread::get_id());
  t.setIdleSpin(true);  // on again: an idle thread takes the job in place
  AppendTicket ticket;
  bool done = false;
  CHECK(submitWhenIdle(t, ticket, work, 5s, done));
  CHECK(done);
  CHECK(runs == 2);
  t.stop();
}
