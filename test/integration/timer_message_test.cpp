// Timer messages (5.x TIMER_* properties sent as user properties by our 4.x client library):
// 10,000 timers over 60 s delivered once and never early, cancel, past / now / too-far times,
// restart and kill -9 with pending and due timers, a backlog after downtime, DELAY interception.
// Delivery lag is printed, never asserted: the precision figures come from `bench.sh timer`.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <climits>
#include <set>
#include <thread>

#include "common/timer_properties.h"
#include "broker_calls.h"
#include "client/message_helpers.h"
#include "client_fixture.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "dev_node.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

Message timerMessage(const std::string& topic, const std::string& body, std::string_view key, int64_t value) {
  Message m;
  m.topic = topic;
  m.body = body;
  m.putProperty(prop::TAGS, "TagT");
  m.putProperty(key, std::to_string(value));
  return m;
}

// Every delivered message by UNIQ_KEY (duplicates counted) once `expected` distinct ones are there.
struct Delivered {
  std::map<std::string, std::vector<MessageExt>> byKey;
  size_t total = 0;
  size_t duplicates() const { return total - byKey.size(); }
};

Delivered collect(PullConsumer& pc, const std::string& topic, size_t expected, std::chrono::seconds timeout) {
  Delivered d;
  eventually([&] {
    d = {};
    for (auto& m : pullAll(pc, topic)) {
      ++d.total;
      d.byKey[uniqKey(m)].push_back(std::move(m));
    }
    return d.byKey.size() >= expected;
  }, timeout);
  return d;
}

// The same, pulling only what is new on each poll (10,000 messages over a minute).
Delivered collectIncrementally(PullConsumer& pc, const std::string& topic, size_t expected,
                               std::chrono::milliseconds timeout) {
  Delivered d;
  auto queues = pc.fetchSubscribeMessageQueues(topic);
  REQUIRE(queues.ok());
  std::vector<int64_t> next(queues->size(), 0);
  eventually([&] {
    for (size_t q = 0; q < queues->size(); ++q) {
      for (;;) {
        auto r = pc.pull((*queues)[q], "*", next[q], 32);
        REQUIRE_OK(r);
        if (r->status != PullStatus::FOUND) break;
        for (auto& m : r->messages) {
          ++d.total;
          d.byKey[uniqKey(m)].push_back(std::move(m));
        }
        next[q] = r->nextBeginOffset;
      }
    }
    return d.byKey.size() >= expected;
  }, timeout);
  return d;
}

int64_t deliverAt(const MessageExt& m) {
  auto* out = m.property(prop::TIMER_OUT_MS);
  return out ? std::stoll(*out) : -1;
}

std::string runtimeValue(DevNode& node, const char* key) {
  TestClient c;
  auto info = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_BROKER_RUNTIME_INFO, {})));
  return info["table"].HasMember(key) ? std::string(info["table"][key].GetString()) : std::string("absent");
}

}  // namespace

// Issue 22's load test: 10,000 timers spread over 60 s. Each is delivered once and never before
// its time; how late (p50 / p99 / max) is printed, not asserted: the precision figure is
// `bench.sh timer`'s (a loaded 2-core CI box must not fail a test over a few ms of scheduling).
TEST_CASE_FIXTURE(NodeWithProducer, "timer: 10000 timers spread over 60 s are each delivered once and never before their time") {
  std::string topic = newTopic("Timer", 4);
  const int n = 10'000, senders = 4;
  const int64_t spreadMs = 60'000, t0 = nowMillis() + 3000;
  auto at = [&](int i) { return t0 + int64_t(i) * spreadMs / n; };
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int k = 0; k < senders; ++k) {
    threads.emplace_back([&, k] {
      for (int i = k; i < n; i += senders) {  // in time order: each is sent well before its time
        // Absolute times for most, relative ones (TIMER_DELAY_MS / TIMER_DELAY_SEC) for some.
        std::string body = "b" + std::to_string(i);
        Message m = i % 10 == 1   ? timerMessage(topic, body, prop::TIMER_DELAY_MS, at(i) - nowMillis())
                    : i % 10 == 2 ? timerMessage(topic, body, prop::TIMER_DELAY_SEC, (at(i) - nowMillis()) / 1000)
                                  : timerMessage(topic, body, prop::TIMER_DELIVER_MS, at(i));
        m.putProperty(prop::KEYS, "k" + std::to_string(i));
        if (!producer->send(m).ok()) ++failed;
      }
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(failed.load() == 0);
  CHECK(std::stoll(runtimeValue(node, "timerPendingCount")) > 0);

  auto pc = startPullConsumer(pullOptions(node));
  Delivered d = collectIncrementally(*pc, topic, n, std::chrono::milliseconds(t0 + spreadMs + 30'000 - nowMillis()));
  REQUIRE(d.byKey.size() == size_t(n));
  CHECK(d.duplicates() == 0);
  std::vector<int64_t> lags;
  int64_t firstOut = INT64_MAX, lastOut = 0;
  for (auto& [key, copies] : d.byKey) {
    const MessageExt& m = copies.front();
    CHECK(m.tags() == "TagT");
    CHECK(m.keys().rfind("k", 0) == 0);
    if (deliverAt(m) < 0) {  // sent within the precision of its time: stored at once, as designed
      if (auto asked = m.property(prop::TIMER_DELIVER_MS)) CHECK(m.storeTimestamp >= std::stoll(*asked) - 100);
      continue;
    }
    lags.push_back(m.storeTimestamp - deliverAt(m));
    firstOut = std::min(firstOut, deliverAt(m));
    lastOut = std::max(lastOut, deliverAt(m));
    CHECK(m.property(prop::TIMER_ENQUEUE_MS));
    CHECK(m.property(prop::TIMER_DEQUEUE_MS));
    CHECK_FALSE(m.property(prop::REAL_TOPIC));
  }
  // Nearly all were held by the timer (a send slower than 6 ms a message falls behind its time).
  REQUIRE(lags.size() >= size_t(n) * 9 / 10);
  CHECK(lastOut - firstOut >= spreadMs * 9 / 10);
  std::sort(lags.begin(), lags.end());
  MESSAGE("10,000 timers over 60 s: " << lags.size() << " held by the timer; delivery lag ms: min " << lags.front()
          << " p50 " << lags[lags.size() / 2] << " p99 " << lags[lags.size() * 99 / 100] << " max " << lags.back());
  CHECK(lags.front() >= 0);  // never before its time
  CHECK(runtimeValue(node, "timerDeliveredCount") == std::to_string(lags.size()));
}

TEST_CASE_FIXTURE(NodeWithProducer, "timer: cancel by delete marker; past and now go out at once; too far is refused") {
  std::string topic = newTopic("TimerCancel", 1);
  auto pc = startPullConsumer(pullOptions(node));
  int64_t at = nowMillis() + 1500;
  auto target = producer->send(timerMessage(topic, "cancelled", prop::TIMER_DELIVER_MS, at));
  REQUIRE(target.ok());
  REQUIRE_OK(producer->send(timerMessage(topic, "kept", prop::TIMER_DELIVER_MS, at)));
  Message marker = timerMessage(topic, "marker", prop::TIMER_DELIVER_MS, at);
  marker.putProperty(prop::TIMER_DEL_UNIQKEY, topic + "+" + target->msgId);
  REQUIRE_OK(producer->send(marker));

  // Past and now: normal messages, visible at once.
  REQUIRE_OK(producer->send(timerMessage(topic, "past", prop::TIMER_DELIVER_MS, nowMillis() - 60'000)));
  REQUIRE_OK(producer->send(timerMessage(topic, "now", prop::TIMER_DELIVER_MS, nowMillis())));
  auto early = collect(*pc, topic, 2, std::chrono::seconds(5));
  std::set<std::string> earlyBodies;
  for (auto& [k, v] : early.byKey) earlyBodies.insert(v.front().body);
  CHECK(earlyBodies.count("past") == 1);
  CHECK(earlyBodies.count("now") == 1);

  // Beyond timerMaxDelaySec (3 days): MESSAGE_ILLEGAL with 5.x's remark.
  auto far = producer->send(timerMessage(topic, "far", prop::TIMER_DELAY_SEC, 4 * 24 * 3600));
  REQUIRE_FALSE(far.ok());
  CHECK(far.error().code == ResponseCode::MESSAGE_ILLEGAL);
  CHECK(far.error().message.find("timer message illegal") != std::string::npos);
  // A delete marker for a time already past: refused too.
  Message late = timerMessage(topic, "late", prop::TIMER_DELIVER_MS, nowMillis() - 1);
  late.putProperty(prop::TIMER_DEL_UNIQKEY, topic + "+ABC");
  CHECK_FALSE(producer->send(late).ok());

  auto d = collect(*pc, topic, 3, std::chrono::seconds(10));
  REQUIRE(d.byKey.size() == 3);
  std::vector<std::string> bodies;
  for (auto& [k, v] : d.byKey) bodies.push_back(v.front().body);
  std::sort(bodies.begin(), bodies.end());
  CHECK(bodies == std::vector<std::string>{"kept", "now", "past"});
  CHECK(eventually([&] { return runtimeValue(node, "timerCancelledCount") == "1"; }, std::chrono::seconds(5)));
  CHECK(runtimeValue(node, "timerPendingCount") == "0");
}

TEST_CASE("timer: clean restart and kill -9 with pending and due timers: each delivered, duplicates only in flight") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("TimerCrash");
  REQUIRE(node.createTopic(topic, 2));
  const int n = 200;
  {
    auto producer = startProducer(producerOptions(node));
    int64_t t0 = nowMillis() + 2500;
    // Half due over 1 s after the clean restart (delivered before and during the kill), half after
    // the kill -9 and its restart.
    for (int i = 0; i < n; ++i) {
      int64_t at = i < n / 2 ? t0 + i * 10 : t0 + 6000 + i;
      auto r = producer->send(timerMessage(topic, "c" + std::to_string(i), prop::TIMER_DELIVER_MS, at));
      REQUIRE_OK(r);
    }
    producer->shutdown();
  }
  // A clean restart before anything is due: nothing lost, nothing early.
  REQUIRE(node.proc.stop() == 0);
  REQUIRE(node.restart());
  REQUIRE(node.waitRouted(topic));
  {
    // One runtime-info answer: pending and delivered are read together.
    TestClient c;
    auto info = brokerRuntimeInfo(c, node.brokerAddr, std::chrono::seconds(5));
    REQUIRE(info);
    CHECK(std::stoll((*info)["timerPendingCount"]) + std::stoll((*info)["timerDeliveredCount"]) == n);
  }
  {
    auto pc = startPullConsumer(pullOptions(node));
    // kill -9 while the first half is being delivered.
    REQUIRE(eventually([&] { return pullAll(*pc, topic).size() >= size_t(n / 4); }, std::chrono::seconds(10)));
    pc->shutdown();
  }
  node.proc.kill();
  REQUIRE(node.restart());
  REQUIRE(node.waitRouted(topic));
  auto pc = startPullConsumer(pullOptions(node));
  auto d = collect(*pc, topic, n, std::chrono::seconds(20));
  CHECK(d.byKey.size() == size_t(n));
  MESSAGE("redelivered after kill -9 (in flight): " << d.duplicates());
  // At most what was delivered since the last progress record: 20 ms of deliveries at 10 ms
  // spacing is ~3, but a delivery pass stalled on a loaded box takes everything due meanwhile
  // (up to 20 for a 200 ms stall) before its progress record; 100 would mean no progress at all.
  CHECK(d.duplicates() <= 25);
  for (auto& [k, copies] : d.byKey) CHECK(copies.front().storeTimestamp >= deliverAt(copies.front()));
}

TEST_CASE("timer: a backlog due while the broker was down drains at timerMaxDeliverRate; normal sends go on meanwhile") {
  DevNode node({.extraStore = "timerMaxDeliverRate = 200"});
  REQUIRE(node.start());
  std::string topic = uniqueName("TimerBacklog"), plain = uniqueName("PlainDuring");
  REQUIRE(node.createTopic(topic, 2));
  REQUIRE(node.createTopic(plain, 1));
  const int n = 800;
  int64_t due = nowMillis() + 1500;
  {
    auto producer = startProducer(producerOptions(node));
    for (int i = 0; i < n; ++i)
      REQUIRE_OK(producer->send(timerMessage(topic, "b" + std::to_string(i), prop::TIMER_DELIVER_MS, due)));
    producer->shutdown();
  }
  REQUIRE(node.proc.stop() == 0);
  while (nowMillis() < due + 500) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // down past the time
  REQUIRE(node.restart());
  auto producer = startProducer(producerOptions(node));
  auto pc = startPullConsumer(pullOptions(node));
  // Plain sends while the backlog drains: each stored, none waiting for the backlog.
  std::vector<int64_t> plainStored;
  for (int i = 0; i < 20; ++i) {
    auto r = producer->send(timerMessage(plain, "p", prop::KEYS, i));
    REQUIRE_OK(r);
  }
  auto d = collect(*pc, topic, n, std::chrono::seconds(20));
  REQUIRE(d.byKey.size() == size_t(n));
  CHECK(d.duplicates() == 0);
  int64_t first = INT64_MAX, last = 0;
  for (auto& [k, v] : d.byKey) {
    first = std::min(first, v.front().storeTimestamp);
    last = std::max(last, v.front().storeTimestamp);
  }
  MESSAGE("backlog of " << n << " drained in " << last - first << " ms at timerMaxDeliverRate 200");
  // A lower bound set by the rate limit, (800 - a 20-message burst) / 200 per s = 3.9 s: load
  // only makes the drain longer. The drain (~4 s) outlasts the producer's start and its 20 sends.
  CHECK(last - first >= 3000);
  auto plainMsgs = pullAll(*pc, plain);
  REQUIRE(plainMsgs.size() == 20);
  // The plain sends were stored while the backlog was still going out, not after it.
  CHECK(plainMsgs.front().storeTimestamp < last);
}

TEST_CASE("timer: timerInterceptDelayLevel routes DELAY levels through the timer; without it they stay in SCHEDULE_TOPIC_XXXX") {
  DevNode node({.extraStore = "timerInterceptDelayLevel = true"});  // dev node: every level is 1 s
  REQUIRE(node.start());
  std::string topic = uniqueName("TimerLevel");
  REQUIRE(node.createTopic(topic, 1));
  auto producer = startProducer(producerOptions(node));
  auto pc = startPullConsumer(pullOptions(node));
  auto sentAt = nowMillis();
  REQUIRE_OK(producer->send(timerMessage(topic, "level", prop::DELAY, 3)));
  auto d = collect(*pc, topic, 1, std::chrono::seconds(10));
  REQUIRE(d.byKey.size() == 1);
  const MessageExt& m = d.byKey.begin()->second.front();
  CHECK(m.storeTimestamp - sentAt >= 1000);
  REQUIRE(m.property(prop::TIMER_DELAY_LEVEL));
  CHECK(*m.property(prop::TIMER_DELAY_LEVEL) == "3");
  CHECK_FALSE(m.property(prop::DELAY));
  CHECK(m.property(prop::TIMER_OUT_MS));
  TestClient c;
  CHECK(maxOffset(c, node.brokerAddr, "SCHEDULE_TOPIC_XXXX", 2) <= 0);  // never parked there
  CHECK(runtimeValue(node, "timerDeliveredCount") == "1");
}

// 5.x decides batches this way too: its put hooks see the batch's own properties, never those of
// the messages inside (MessageBatch carries none of theirs), so TIMER_* inside a batch are plain
// user properties and the messages are stored at once.
TEST_CASE_FIXTURE(NodeWithProducer, "timer: TIMER_* properties inside a batch are not timers (as 5.x): stored at once and kept as user properties") {
  std::string topic = newTopic("TimerBatch", 1);
  const int64_t at = nowMillis() + 60'000;
  std::vector<Message> batch;
  for (int i = 0; i < 5; ++i) batch.push_back(timerMessage(topic, "m" + std::to_string(i), prop::TIMER_DELIVER_MS, at));
  batch.push_back(timerMessage(topic, "rel", prop::TIMER_DELAY_SEC, 60));
  auto r = producer->sendBatch(batch);
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  auto pc = startPullConsumer(pullOptions(node));
  auto d = collect(*pc, topic, batch.size(), std::chrono::seconds(10));
  REQUIRE(d.byKey.size() == batch.size());
  for (auto& [k, copies] : d.byKey) {
    const MessageExt& m = copies.front();
    CHECK(m.storeTimestamp < at);
    CHECK(deliverAt(m) < 0);  // no TIMER_OUT_MS: never parked
    CHECK((m.property(prop::TIMER_DELIVER_MS) || m.property(prop::TIMER_DELAY_SEC)));
  }
  CHECK(runtimeValue(node, "timerPendingCount") == "0");
  TestClient c;
  CHECK(maxOffset(c, node.brokerAddr, "rmq_sys_wheel_timer", 0) <= 0);
}
