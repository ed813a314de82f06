// Orderly push consumers against a real rmqnode: orders keyed by id through the order-id selector
// stay in per-id order (each id's steps exactly once, in order) across two members, a third
// joining, one leaving and a retry in place (SUSPEND_CURRENT_QUEUE_A_MOMENT once); a queue's
// batches never overlap, even across members (broker locks).
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "client/broker_api.h"
#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/push_consumer.h"
#include "broker_calls.h"
#include "client_fixture.h"
#include "dev_node.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

constexpr int kOrders = 8;

struct OrderLedger {
  std::mutex mu;
  std::map<int, std::vector<int>> steps;  // order id -> steps in consumption order
  std::map<MessageQueue, int> inFlight;   // listener calls running per queue (all members)
  int overlaps = 0;
  int attemptsOfSuspended = 0;
  int suspendedReconsumeTimes = -1;
  std::map<std::string, int> byMember;
  std::string suspendBody;  // answered SUSPEND once

  OrderlyListener listener(const std::string& member) {
    return [this, member](const std::vector<MessageExt>& msgs, const MessageQueue& mq) {
      {
        std::lock_guard lk(mu);
        if (++inFlight[mq] > 1) overlaps++;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // widen any overlap window
      std::lock_guard lk(mu);
      inFlight[mq]--;
      for (const auto& m : msgs) {
        if (m.body == suspendBody && ++attemptsOfSuspended == 1) return ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
        if (m.body == suspendBody) suspendedReconsumeTimes = m.reconsumeTimes;
      }
      for (const auto& m : msgs) {
        auto colon = m.body.find(':');
        steps[std::stoi(m.body.substr(5, colon - 5))].push_back(std::stoi(m.body.substr(colon + 1)));
        byMember[member]++;
      }
      return ConsumeOrderlyStatus::SUCCESS;
    };
  }
  bool complete(int perOrder) {
    std::lock_guard lk(mu);
    int n = 0;
    for (auto& [id, s] : steps) n += static_cast<int>(s.size());
    return n >= kOrders * perOrder;
  }
};

void sendSteps(Producer& p, const std::string& topic, int from, int to) {
  for (int step = from; step < to; ++step) {
    for (int id = 0; id < kOrders; ++id) {
      auto msg = makeMessage(topic, "TagA", "order" + std::to_string(id),
                             "order" + std::to_string(id) + ":" + std::to_string(step));
      REQUIRE_OK(p.send(msg, selectByOrderId, id));
    }
  }
}

PushConsumerOptions memberOptions(const DevNode& node, const std::string& group) {
  PushConsumerOptions o = fastPushOptions(node, group);
  o.lockRenewInterval = std::chrono::milliseconds(1000);  // renewals run during the test
  o.suspendCurrentQueueTime = std::chrono::milliseconds(200);
  o.consumeMessageBatchMaxSize = 2;
  return o;
}

std::unique_ptr<PushConsumer> startMember(const DevNode& node, const std::string& group, const std::string& topic,
                                          OrderLedger& ledger, const std::string& name) {
  auto c = std::make_unique<PushConsumer>(memberOptions(node, group));
  REQUIRE(c->subscribe(topic, "*").ok());
  c->registerListener(ledger.listener(name));
  REQUIRE(c->start().ok());
  return c;
}

// Rebalances `members` until they hold the topic's 4 queues between them, each exactly once.
bool coverAll(const std::vector<PushConsumer*>& members, const std::string& topic) {
  return eventually([&] {
    std::multiset<int> held;
    for (auto* m : members) m->rebalanceNow();
    for (auto* m : members)
      for (auto& q : m->assignedQueues())
        if (q.topic == topic) held.insert(q.queueId);
    return held == std::multiset<int>{0, 1, 2, 3};
  }, std::chrono::seconds(30));
}

}  // namespace

TEST_CASE_FIXTURE(NodeWithProducer, "client orderly consumer: per-id order across members joining and leaving and a retry in place") {
  std::string topic = newTopic("OrderTopic", 4);
  std::string group = uniqueName("cg_orderly");
  OrderLedger ledger;
  ledger.suspendBody = "order3:2";  // phase 1: no hand-over resets its in-memory count

  auto a = startMember(node, group, topic, ledger, "A");
  auto b = startMember(node, group, topic, ledger, "B");
  REQUIRE(coverAll({a.get(), b.get()}, topic));
  sendSteps(*producer, topic, 0, 5);
  REQUIRE(eventually([&] { return ledger.complete(5); }, std::chrono::seconds(30)));

  sendSteps(*producer, topic, 5, 10);  // in flight while a third member joins
  auto c = startMember(node, group, topic, ledger, "C");
  REQUIRE(coverAll({a.get(), b.get(), c.get()}, topic));
  REQUIRE(eventually([&] { return ledger.complete(10); }, std::chrono::seconds(30)));

  sendSteps(*producer, topic, 10, 15);  // in flight while B leaves
  b->shutdown();
  REQUIRE(coverAll({a.get(), c.get()}, topic));
  REQUIRE(eventually([&] { return ledger.complete(15); }, std::chrono::seconds(30)));

  std::lock_guard lk(ledger.mu);
  std::vector<int> expected;
  for (int s = 0; s < 15; ++s) expected.push_back(s);
  for (int id = 0; id < kOrders; ++id) {
    CAPTURE(id);
    CHECK(ledger.steps[id] == expected);  // in order, nothing twice, nothing lost
  }
  CHECK(ledger.overlaps == 0);
  CHECK(ledger.attemptsOfSuspended == 2);        // suspended once, then retried in place
  CHECK(ledger.suspendedReconsumeTimes == 1);
  CHECK(ledger.byMember["A"] > 0);
  CHECK(ledger.byMember["C"] > 0);
  a->shutdown();
  c->shutdown();
  producer->shutdown();
}

TEST_CASE_FIXTURE(NodeWithProducer, "client orderly consumer: after maxReconsumeTimes suspensions the message goes to %DLQ% and the queue moves on") {
  std::string topic = newTopic("OrderDlq", 1);
  std::string group = uniqueName("cg_odlq");
  std::mutex mu;
  std::vector<std::string> seen;  // every listener call's bodies, in call order
  PushConsumerOptions o = memberOptions(node, group);
  o.maxReconsumeTimes = 2;
  o.consumeMessageBatchMaxSize = 1;
  PushConsumer c(o);
  REQUIRE(c.subscribe(topic, "*").ok());
  c.registerListener([&](const std::vector<MessageExt>& msgs, const MessageQueue&) {
    std::lock_guard lk(mu);
    seen.push_back(msgs[0].body);
    return msgs[0].body == "poison" ? ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT : ConsumeOrderlyStatus::SUCCESS;
  });
  REQUIRE(c.start().ok());
  for (std::string body : {"m0", "poison", "m2"}) REQUIRE_OK(producer->send(makeMessage(topic, "TagA", "", body)));
  REQUIRE(eventually([&] { std::lock_guard lk(mu); return !seen.empty() && seen.back() == "m2"; }, std::chrono::seconds(30)));
  {
    std::lock_guard lk(mu);
    // reconsumeTimes 0, 1 suspend in place; at 2 (= max) it is sent back instead of consumed again.
    CHECK(seen == std::vector<std::string>{"m0", "poison", "poison", "poison", "m2"});
  }
  TestClient tc;
  REQUIRE(dispatched(tc, node.brokerAddr, "%DLQ%" + group, 0, 1));
  auto dead = pullMessages(tc, node.brokerAddr, {.group = group, .topic = "%DLQ%" + group});
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].body == "poison");
  // Offsets: everything consumed or dead-lettered is committed (3 = past m2).
  c.persistOffsetsNow();
  const MessageQueue mq{topic, "broker-a", 0};
  CHECK(eventually([&] {
    auto off = c.instance().runSync(queryConsumerOffset(c.instance(), group, mq));
    return off.ok() && *off == 3;
  }, std::chrono::seconds(10)));
  c.shutdown();
  producer->shutdown();
}
