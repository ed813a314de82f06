// The seeds' transaction example through our TransactionProducer and PushConsumer on a real
// rmqnode: bodies ending in 666 commit, 777 roll back, 888 are resolved by check-back (UNKNOW on
// the first check, COMMIT on the second); a consumer sees exactly the committed ones, once. Then
// the broker is killed -9 between a half message and its decision: after the restart the
// check-back resolves it.
#include <doctest/doctest.h>

#include <map>
#include <mutex>
#include <set>

#include "client/message_helpers.h"
#include "client/consumer/push_consumer.h"
#include "client/producer/transaction_producer.h"
#include "dev_node.h"
#include "node_process.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

const std::string kFastChecks = "transactionCheckInterval = 500\ntransactionTimeOut = 1000\n";

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The seeds' listener: 666 commit, 777 roll back, everything else unknown until checked twice.
struct SeedListener {
  std::mutex mu;
  std::map<std::string, int> checks;  // body -> checks seen
  std::function<void()> onExecuteKill;  // runs inside executeLocalTransaction of "kill-..." bodies

  TransactionListener listener() {
    TransactionListener l;
    l.executeLocalTransaction = [this](const Message& m, void*) {
      if (endsWith(m.body, "666")) return LocalTransactionState::COMMIT_MESSAGE;
      if (endsWith(m.body, "777")) return LocalTransactionState::ROLLBACK_MESSAGE;
      if (m.body.rfind("kill-", 0) == 0 && onExecuteKill) onExecuteKill();
      return LocalTransactionState::UNKNOW;
    };
    l.checkLocalTransaction = [this](const MessageExt& m) {
      std::lock_guard lk(mu);
      int n = ++checks[m.body];
      return n >= 2 ? LocalTransactionState::COMMIT_MESSAGE : LocalTransactionState::UNKNOW;
    };
    return l;
  }
  int checksOf(const std::string& body) {
    std::lock_guard lk(mu);
    return checks[body];
  }
};

struct Received {
  std::mutex mu;
  std::multiset<std::string> bodies;
  std::map<std::string, MessageExt> byBody;
  MessageListener listener() {
    return [this](const std::vector<MessageExt>& msgs, const MessageQueue&) {
      std::lock_guard lk(mu);
      for (auto& m : msgs) {
        bodies.insert(m.body);
        byBody[m.body] = m;
      }
      return ConsumeStatus::CONSUME_SUCCESS;
    };
  }
  std::multiset<std::string> snapshot() {
    std::lock_guard lk(mu);
    return bodies;
  }
};

}  // namespace

TEST_CASE("client transaction producer: 666 commit, 777 roll back, 888 by check-back; kill -9 before the decision") {
  DevNode node({.extraBroker = kFastChecks});
  REQUIRE(node.start());
  const std::string topic = uniqueName("TxSeed");
  REQUIRE(node.createTopic(topic, 4));

  Received got;
  PushConsumerOptions co;
  co.group = uniqueName("cg_tx");
  co.client = node.clientConfig();
  co.consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  co.rebalanceInterval = std::chrono::milliseconds(2000);
  PushConsumer consumer(co);
  consumer.subscribe(topic, "*");
  consumer.registerListener(got.listener());
  REQUIRE(consumer.start().ok());

  SeedListener seed;
  ProducerOptions po;
  po.group = uniqueName("pg_tx");
  po.client = node.clientConfig();
  po.client.heartbeatBrokerInterval = std::chrono::milliseconds(500);  // re-registers fast after the restart
  TransactionProducer producer(po, seed.listener());
  REQUIRE(producer.start().ok());

  std::multiset<std::string> expected;
  for (int i = 0; i < 3; ++i) {
    for (std::string tail : {"666", "777", "888"}) {
      std::string body = "order-" + std::to_string(i) + "-" + tail;
      auto r = producer.sendMessageInTransaction(makeMessage(topic, "TagTx", "key-" + body, body));
      REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
      CHECK(r->status == SendStatus::SEND_OK);
      if (tail == "666") CHECK(r->localTransactionState == LocalTransactionState::COMMIT_MESSAGE);
      if (tail == "777") CHECK(r->localTransactionState == LocalTransactionState::ROLLBACK_MESSAGE);
      if (tail == "888") CHECK(r->localTransactionState == LocalTransactionState::UNKNOW);
      if (tail != "777") expected.insert(body);
    }
  }
  REQUIRE(eventually([&] { return got.snapshot() == expected; }, std::chrono::seconds(40)));
  for (int i = 0; i < 3; ++i) CHECK(seed.checksOf("order-" + std::to_string(i) + "-888") == 2);
  for (int i = 0; i < 3; ++i) CHECK(seed.checksOf("order-" + std::to_string(i) + "-666") == 0);
  {
    std::lock_guard lk(got.mu);
    auto& m = got.byBody["order-0-888"];
    CHECK(m.topic == topic);
    CHECK((m.sysFlag & 0xC) == 8);
    REQUIRE(m.property("KEYS"));
    CHECK(*m.property("KEYS") == "key-order-0-888");
  }

  // kill -9 between the half message and the decision.
  seed.onExecuteKill = [&] { node.proc.kill(); };
  auto killed = producer.sendMessageInTransaction(makeMessage(topic, "TagTx", "", "kill-999"));
  REQUIRE(killed.ok());
  REQUIRE(node.restart());
  expected.insert("kill-999");
  REQUIRE(eventually([&] { return got.snapshot() == expected; }, std::chrono::seconds(60)));
  CHECK(seed.checksOf("kill-999") >= 2);

  // Nothing more arrives: no 777, nothing twice.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  CHECK(got.snapshot() == expected);
  consumer.shutdown();
  producer.shutdown();
}
