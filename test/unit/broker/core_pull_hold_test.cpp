// PullRequestHold: parked coroutines and parked records woken by arrivals (filter-aware), by
// timeout, by wakeAll, by their connection's ParkCancel.
#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <chrono>
#include <thread>

#include "filter/filter.h"
#include "roles/broker/delivery/pull_request_hold.h"

using namespace rmq;
using namespace rmq::broker;
using namespace std::chrono_literals;

namespace {

struct Parked {
  std::optional<bool> woken;  // set when wait() returned
  std::chrono::steady_clock::time_point at;
};

asio::awaitable<void> park(PullRequestHold& hold, std::string topic, int64_t offset, PullRequestHold::FilterPtr f,
                           std::chrono::milliseconds timeout, Parked& out, int64_t maxNow = 0,
                           ParkCancel* cancel = nullptr) {
  const std::function<bool()> arrived = [maxNow, offset] { return maxNow > offset; };
  out.woken = co_await hold.wait(topic, 0, offset, std::move(f), timeout, arrived, cancel);
  out.at = std::chrono::steady_clock::now();
}

// Runs the io_context on a thread (like a network thread) while the test thread notifies.
struct Loop {
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> guard{io.get_executor()};
  std::thread t{[this] { io.run(); }};
  ~Loop() {
    guard.reset();
    io.stop();
    t.join();
  }
};

template <class Pred>
bool eventually(Pred p, std::chrono::milliseconds limit = 2000ms) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (!p()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

}  // namespace

TEST_CASE("an arrival past the parked offset wakes the pull; earlier offsets and other queues do not") {
  PullRequestHold hold;
  Loop loop;
  Parked p;
  asio::co_spawn(loop.io, park(hold, "T", 5, nullptr, 10s, p), asio::detached);
  REQUIRE(eventually([&] { return hold.parkedCount() == 1; }));
  hold.notifyMessageArriving("T", 1, 100, 0, {});  // other queue
  hold.notifyMessageArriving("U", 0, 100, 0, {});  // other topic
  hold.notifyMessageArriving("T", 0, 5, 0, {});    // queue ends at 5: nothing new for offset 5
  std::this_thread::sleep_for(20ms);
  CHECK_FALSE(p.woken.has_value());
  auto sent = std::chrono::steady_clock::now();
  hold.notifyMessageArriving("T", 0, 6, 0, {});
  REQUIRE(eventually([&] { return p.woken.has_value(); }));
  CHECK(*p.woken);
  CHECK(p.at - sent < 1s);
  CHECK(hold.parkedCount() == 0);
}

TEST_CASE("tag filter: a non-matching arrival leaves the pull parked, a matching one wakes it") {
  PullRequestHold hold;
  Loop loop;
  auto f = filter::compileExpression(filter::ExpressionType::Tag, "TagA");
  REQUIRE(f.ok());
  auto fp = std::make_shared<const filter::Filter>(std::move(*f));
  Parked p;
  asio::co_spawn(loop.io, park(hold, "T", 0, fp, 10s, p), asio::detached);
  REQUIRE(eventually([&] { return hold.parkedCount() == 1; }));
  hold.notifyMessageArriving("T", 0, 1, filter::javaStringHash("TagB"), {});
  std::this_thread::sleep_for(20ms);
  CHECK_FALSE(p.woken.has_value());
  hold.notifyMessageArriving("T", 0, 2, filter::javaStringHash("TagA"), {});
  REQUIRE(eventually([&] { return p.woken.has_value(); }));
  CHECK(*p.woken);
}

TEST_CASE("timeout answers without an arrival; a message already there wakes at once") {
  PullRequestHold hold;
  Loop loop;
  Parked timedOut, raced;
  auto start = std::chrono::steady_clock::now();
  asio::co_spawn(loop.io, park(hold, "T", 0, nullptr, 50ms, timedOut), asio::detached);
  asio::co_spawn(loop.io, park(hold, "T", 3, nullptr, 10s, raced, /*maxNow=*/4), asio::detached);
  REQUIRE(eventually([&] { return timedOut.woken.has_value() && raced.woken.has_value(); }));
  CHECK_FALSE(*timedOut.woken);
  CHECK(timedOut.at - start >= 50ms);
  CHECK(*raced.woken);
  CHECK(hold.parkedCount() == 0);
}

TEST_CASE("thousands of parked pulls, all answered by wakeAll") {
  PullRequestHold hold;
  Loop loop;
  std::vector<Parked> ps(3000);
  for (size_t i = 0; i < ps.size(); ++i)
    asio::co_spawn(loop.io, park(hold, "T" + std::to_string(i % 50), 0, nullptr, 30s, ps[i]), asio::detached);
  REQUIRE(eventually([&] { return hold.parkedCount() == ps.size(); }));
  hold.wakeAll();
  REQUIRE(eventually([&] {
    return std::all_of(ps.begin(), ps.end(), [](auto& p) { return p.woken.has_value(); });
  }));
  CHECK(hold.parkedCount() == 0);
}

namespace {
asio::awaitable<void> parkPop(PullRequestHold& hold, std::string topic, int32_t queueId, std::string group,
                              PullRequestHold::FilterPtr f, Parked& out, ParkCancel* cancel = nullptr) {
  const std::function<bool()> ready = [] { return false; };
  out.woken = co_await hold.waitPop(topic, queueId, group, std::move(f), 10s, ready, cancel);
  out.at = std::chrono::steady_clock::now();
}
size_t wokenCount(const std::vector<Parked>& ps) {
  return std::count_if(ps.begin(), ps.end(), [](const Parked& p) { return p.woken.has_value(); });
}
}  // namespace

TEST_CASE("parked pops: one arrival wakes one pop per group (queue or whole topic), only where the filter takes it") {
  PullRequestHold hold;
  Loop loop;
  auto f = filter::compileExpression(filter::ExpressionType::Tag, "TagA");
  REQUIRE(f.ok());
  auto tagA = std::make_shared<const filter::Filter>(std::move(*f));
  std::vector<Parked> g1(3), g2(2), picky(1);
  for (auto& p : g1) asio::co_spawn(loop.io, parkPop(hold, "T", PullRequestHold::kAnyQueue, "g1", nullptr, p), asio::detached);
  for (auto& p : g2) asio::co_spawn(loop.io, parkPop(hold, "T", 2, "g2", nullptr, p), asio::detached);
  asio::co_spawn(loop.io, parkPop(hold, "T", PullRequestHold::kAnyQueue, "g3", tagA, picky[0]), asio::detached);
  REQUIRE(eventually([&] { return hold.parkedPopCount() == 6; }));
  CHECK(hold.parkedCount() == 6);

  hold.notifyMessageArriving("T", 2, 1, filter::javaStringHash("TagB"), {});
  REQUIRE(eventually([&] { return wokenCount(g1) == 1 && wokenCount(g2) == 1; }));
  std::this_thread::sleep_for(20ms);
  CHECK(wokenCount(g1) == 1);  // not all three
  CHECK(wokenCount(g2) == 1);
  CHECK_FALSE(picky[0].woken.has_value());  // TagB is not for it
  CHECK(hold.parkedPopCount() == 4);

  hold.notifyMessageArriving("T", 0, 1, filter::javaStringHash("TagA"), {});  // queue 0: g2 waits on queue 2 only
  REQUIRE(eventually([&] { return wokenCount(g1) == 2 && picky[0].woken.has_value(); }));
  CHECK(wokenCount(g2) == 1);

  hold.notifyPopDue("g2", "T", 2);  // a redelivery of g2's: one of g2, nobody else
  REQUIRE(eventually([&] { return wokenCount(g2) == 2; }));
  std::this_thread::sleep_for(20ms);
  CHECK(wokenCount(g1) == 2);
  CHECK(hold.parkedPopCount() == 1);
  hold.wakeAll();
  REQUIRE(eventually([&] { return wokenCount(g1) == 3; }));
  CHECK(hold.parkedPopCount() == 0);
}

TEST_CASE("ParkCancel: cancel() from another thread ends a parked pop at once; a later park returns at once") {
  PullRequestHold hold;
  Loop loop;
  ParkCancel cancel;
  Parked first, second, bystander;
  asio::co_spawn(loop.io, parkPop(hold, "T", 0, "g", nullptr, bystander), asio::detached);
  asio::co_spawn(loop.io, parkPop(hold, "T", 0, "g", nullptr, first, &cancel), asio::detached);
  REQUIRE(eventually([&] { return hold.parkedPopCount() == 2; }));
  const auto sent = std::chrono::steady_clock::now();
  cancel.cancel();
  REQUIRE(eventually([&] { return first.woken.has_value(); }));
  CHECK_FALSE(*first.woken);  // cancelled, not woken by a message
  CHECK(first.at - sent < 1s);
  CHECK(cancel.cancelled());
  CHECK(hold.parkedPopCount() == 1);  // the other call's pop stays parked
  // Sticky: a pop of the same call parking after the cancel (between two parks) does not wait.
  asio::co_spawn(loop.io, parkPop(hold, "T", 0, "g", nullptr, second, &cancel), asio::detached);
  REQUIRE(eventually([&] { return second.woken.has_value(); }));
  CHECK_FALSE(*second.woken);
  CHECK(hold.parkedPopCount() == 1);
  CHECK_FALSE(bystander.woken.has_value());
  hold.wakeAll();
  REQUIRE(eventually([&] { return bystander.woken.has_value(); }));
}

TEST_CASE("ParkCancel of a connection: cancel() ends all its parked pulls at once, not another's; later parks return") {
  PullRequestHold hold;
  Loop loop;
  ParkCancel closed, other;
  std::vector<Parked> mine(3);
  Parked bystander, late;
  for (size_t i = 0; i < mine.size(); ++i)
    asio::co_spawn(loop.io, park(hold, "T" + std::to_string(i % 2), 0, nullptr, 30s, mine[i], 0, &closed),
                   asio::detached);
  asio::co_spawn(loop.io, park(hold, "T0", 0, nullptr, 30s, bystander, 0, &other), asio::detached);
  REQUIRE(eventually([&] { return hold.parkedCount() == 4; }));
  closed.cancel();
  REQUIRE(eventually([&] { return wokenCount(mine) == mine.size(); }));
  for (auto& p : mine) CHECK_FALSE(*p.woken);  // ended by the cancel, not by a message
  CHECK(hold.parkedCount() == 1);
  CHECK_FALSE(bystander.woken.has_value());
  asio::co_spawn(loop.io, park(hold, "T0", 0, nullptr, 30s, late, 0, &closed), asio::detached);
  REQUIRE(eventually([&] { return late.woken.has_value(); }));
  CHECK_FALSE(*late.woken);
  CHECK(hold.parkedCount() == 1);
  hold.notifyMessageArriving("T0", 0, 1, 0, {});  // the other connection's pull is still served
  REQUIRE(eventually([&] { return bystander.woken.has_value(); }));
  CHECK(*bystander.woken);
}

// ---- parked records (a remoting PULL: no coroutine, resumed on its connection's thread) --------

namespace {

// What a record saw when resumed: once, on which thread, after how many others, cancelled or not.
struct Record final : PullRequestHold::Parked {
  std::atomic<int>* resumedCount = nullptr;
  std::atomic<int> resumes{0};
  int order = -1;
  std::thread::id thread;
  bool cancelled = false;
  void resume() override {
    thread = std::this_thread::get_id();
    cancelled = cancel && cancel->cancelled();
    order = (*resumedCount)++;
    ++resumes;
  }
};

// Parks on the loop's thread, as a connection's handler does.
std::shared_ptr<Record> parkRecord(PullRequestHold& hold, Loop& loop, std::atomic<int>& resumed, std::string topic,
                                   int64_t offset, std::chrono::milliseconds timeout,
                                   std::shared_ptr<ParkCancel> cancel = nullptr, int64_t maxNow = 0) {
  auto r = std::make_shared<Record>();
  r->resumedCount = &resumed;
  r->offset = offset;
  r->cancel = std::move(cancel);
  asio::post(loop.io, [&hold, &loop, r, topic, timeout, maxNow, offset] {
    const std::function<bool()> arrived = [maxNow, offset] { return maxNow > offset; };
    hold.park(r, loop.io.get_executor(), topic, 0, timeout, arrived);
  });
  return r;
}

}  // namespace

TEST_CASE("parked records: resumed once on their thread, by an arrival, or at their deadline earliest first") {
  PullRequestHold hold;
  Loop loop;
  std::atomic<int> resumed{0};
  // Deadlines out of parking order: one timer per thread must still end them earliest first.
  auto late = parkRecord(hold, loop, resumed, "T", 0, 300ms);
  auto early = parkRecord(hold, loop, resumed, "T", 0, 100ms);
  auto middle = parkRecord(hold, loop, resumed, "T", 0, 200ms);
  auto woken = parkRecord(hold, loop, resumed, "W", 5, 30s);
  auto raced = parkRecord(hold, loop, resumed, "W", 3, 30s, nullptr, /*maxNow=*/4);  // arrived before the park
  REQUIRE(eventually([&] { return raced->resumes == 1; }));
  REQUIRE(eventually([&] { return hold.parkedCount() == 4; }));
  hold.notifyMessageArriving("W", 0, 5, 0, {});  // nothing new for offset 5
  hold.notifyMessageArriving("W", 0, 6, 0, {});
  REQUIRE(eventually([&] { return woken->resumes == 1; }));
  REQUIRE(eventually([&] { return late->resumes == 1; }));
  CHECK(early->order < middle->order);
  CHECK(middle->order < late->order);
  for (auto* r : {late.get(), early.get(), middle.get(), woken.get(), raced.get()}) {
    CHECK(r->resumes == 1);
    CHECK(r->thread == loop.t.get_id());
    CHECK_FALSE(r->cancelled);
  }
  CHECK(hold.parkedCount() == 0);
  hold.notifyMessageArriving("W", 0, 7, 0, {});  // nothing parked: nothing resumed twice
  std::this_thread::sleep_for(20ms);
  CHECK(woken->resumes == 1);
}

TEST_CASE("parked records: a closed connection's thousands end at once (cancelled), wakeAll ends the others") {
  PullRequestHold hold;
  Loop loop;
  std::atomic<int> resumed{0};
  auto closed = std::make_shared<ParkCancel>();
  std::vector<std::shared_ptr<Record>> mine, others;
  for (int i = 0; i < 2000; ++i) mine.push_back(parkRecord(hold, loop, resumed, "T" + std::to_string(i % 8), 0, 30s, closed));
  for (int i = 0; i < 1000; ++i) others.push_back(parkRecord(hold, loop, resumed, "T" + std::to_string(i % 8), 0, 30s));
  REQUIRE(eventually([&] { return hold.parkedCount() == 3000; }));
  closed->cancel();
  REQUIRE(eventually([&] { return resumed.load() == 2000; }));
  for (auto& r : mine) CHECK(r->cancelled);
  CHECK(hold.parkedCount() == 1000);
  auto afterClose = parkRecord(hold, loop, resumed, "T0", 0, 30s, closed);  // parked after the close: ends at once
  REQUIRE(eventually([&] { return afterClose->resumes == 1; }));
  CHECK(afterClose->cancelled);
  hold.wakeAll();
  REQUIRE(eventually([&] { return resumed.load() == 3001; }));
  for (auto& r : others) CHECK((r->resumes == 1 && !r->cancelled));
  CHECK(hold.parkedCount() == 0);
}
