// Push consumer against a real rmqnode: clustering rebalance as members join and leave (no loss,
// no double consumption), broadcasting, consume-from-timestamp, tag filtering, retry through
// %RETRY% after RECONSUME_LATER.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "client/consumer/push_consumer.h"
#include "client_fixture.h"
#include "dev_node.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

namespace {

// Records which member consumed which body.
struct Ledger {
  std::mutex mu;
  std::multimap<std::string, std::string> byBody;  // body -> member
  std::map<std::string, int> countByMember;

  MessageListener listener(const std::string& member) {
    return [this, member](const std::vector<MessageExt>& msgs, const MessageQueue&) {
      std::lock_guard lk(mu);
      for (const auto& m : msgs) {
        byBody.emplace(m.body, member);
        countByMember[member]++;
      }
      return ConsumeStatus::CONSUME_SUCCESS;
    };
  }
  size_t distinct() {
    std::lock_guard lk(mu);
    std::set<std::string> bodies;
    for (auto& [b, m] : byBody) bodies.insert(b);
    return bodies.size();
  }
  size_t total() { std::lock_guard lk(mu); return byBody.size(); }
  int of(const std::string& member) { std::lock_guard lk(mu); return countByMember[member]; }
};

}  // namespace

TEST_CASE_FIXTURE(NodeWithProducer, "client push consumer: clustering rebalance as a second member joins and leaves") {
  std::string topic = newTopic("PushTopic", 4);
  std::string group = uniqueName("cg");
  Ledger ledger;

  PushConsumer a(fastPushOptions(node, group));
  REQUIRE(a.subscribe(topic, "*").ok());
  a.registerListener(ledger.listener("A"));
  REQUIRE(a.start().ok());
  sendBodies(*producer, topic, "r1-", 40);
  REQUIRE(eventually([&] { return ledger.distinct() == 40; }, std::chrono::seconds(20)));
  CHECK(ledger.of("A") == 40);
  a.persistOffsetsNow();

  PushConsumer b(fastPushOptions(node, group));
  REQUIRE(b.subscribe(topic, "*").ok());
  b.registerListener(ledger.listener("B"));
  REQUIRE(b.start().ok());
  // Both members see each other after the broker's notification (or the 20 s timer).
  auto topicQueues = [&](PushConsumer& c) {
    int n = 0;
    for (auto& q : c.assignedQueues()) n += q.topic == topic;
    return n;
  };
  REQUIRE(eventually([&] {
    a.rebalanceNow();
    b.rebalanceNow();
    return topicQueues(a) == 2 && topicQueues(b) == 2;
  }, std::chrono::seconds(20)));
  sendBodies(*producer, topic, "r2-", 40);
  REQUIRE(eventually([&] { return ledger.distinct() == 80; }, std::chrono::seconds(20)));
  CHECK(ledger.of("B") > 0);
  CHECK(ledger.of("A") > 40);
  CHECK(ledger.total() == 80);  // nothing consumed twice
  b.persistOffsetsNow();

  b.shutdown();
  REQUIRE(eventually([&] {
    a.rebalanceNow();
    return topicQueues(a) == 4;
  }, std::chrono::seconds(20)));
  sendBodies(*producer, topic, "r3-", 40);
  REQUIRE(eventually([&] { return ledger.distinct() == 120; }, std::chrono::seconds(20)));
  CHECK(ledger.total() == 120);
  a.shutdown();
  producer->shutdown();
}

TEST_CASE_FIXTURE(NodeWithProducer, "client push consumer: broadcasting delivers every message to every member") {
  std::string topic = newTopic("BcTopic", 2);
  std::string group = uniqueName("bg");
  auto offsetDir = std::filesystem::path(node.proc.dir()) / "offsets";
  Ledger one, two;
  std::vector<std::unique_ptr<PushConsumer>> members;
  int k = 0;
  for (Ledger* l : {&one, &two}) {
    auto o = fastPushOptions(node, group);
    o.messageModel = MessageModel::BROADCASTING;
    o.client.instanceName = "member" + std::to_string(k++);
    o.offsetStoreDir = offsetDir.string();
    auto c = std::make_unique<PushConsumer>(o);
    REQUIRE(c->subscribe(topic, "*").ok());
    c->registerListener(l->listener("M"));
    REQUIRE(c->start().ok());
    members.push_back(std::move(c));
  }
  sendBodies(*producer, topic, "b-", 20);
  REQUIRE(eventually([&] { return one.distinct() == 20 && two.distinct() == 20; }, std::chrono::seconds(20)));
  CHECK(one.total() == 20);
  CHECK(two.total() == 20);
  for (auto& m : members) m->shutdown();
  // Each member kept its progress in its own local offset file.
  CHECK(std::filesystem::exists(offsetDir / members[0]->clientId() / group / "offsets.json"));
  CHECK(std::filesystem::exists(offsetDir / members[1]->clientId() / group / "offsets.json"));
  producer->shutdown();
}

TEST_CASE_FIXTURE(NodeWithProducer, "client push consumer: consume from timestamp (Java semantics) and tag filtering") {
  std::string topic = newTopic("TsTopic", 1);
  sendBodies(*producer, topic, "old-", 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  int64_t cut = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  sendBodies(*producer, topic, "new-", 5);
  REQUIRE_OK(producer->send(makeMessage(topic, "TagB", "", "tagged-b")));

  // The offset CONSUME_FROM_TIMESTAMP starts from when the broker has none stored: the first
  // message stored at or after the timestamp.
  PullConsumer probe(pullOptions(node, uniqueName("tsprobe")));
  REQUIRE(probe.start().ok());
  auto queues = probe.fetchSubscribeMessageQueues(topic);
  REQUIRE(queues.ok());
  REQUIRE(eventually([&] { auto m = probe.maxOffset(queues->front()); return m.ok() && *m == 11; }, std::chrono::seconds(10)));
  auto startAt = probe.searchOffset(queues->front(), cut);
  REQUIRE_MESSAGE(startAt.ok(), startAt.error().message);
  CHECK(*startAt == 5);
  probe.shutdown();

  // A fresh group on a queue whose first message is still in memory gets offset 0 from
  // QUERY_CONSUMER_OFFSET (PROTOCOL.md 8.6), so - exactly like the Java client - it consumes
  // from 0; the timestamp only applies when the broker has no offset (QUERY_NOT_FOUND).
  Ledger ledger;
  auto o = fastPushOptions(node, uniqueName("tsg"));
  o.consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_TIMESTAMP;
  o.consumeTimestampMs = cut;
  PushConsumer c(o);
  REQUIRE(c.subscribe(topic, "TagA || TagC").ok());
  c.registerListener(ledger.listener("C"));
  REQUIRE(c.start().ok());
  REQUIRE(eventually([&] { return ledger.distinct() == 10; }, std::chrono::seconds(20)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  {
    std::lock_guard lk(ledger.mu);
    CHECK(ledger.byBody.count("tagged-b") == 0);  // filtered by tag
  }
  CHECK(ledger.total() == 10);
  c.shutdown();
  producer->shutdown();
}

TEST_CASE_FIXTURE(NodeWithProducer, "client push consumer: RECONSUME_LATER redelivers through the retry topic") {
  std::string topic = newTopic("RetryTopic", 1);
  std::mutex mu;
  std::vector<std::pair<std::string, int>> deliveries;  // topic, reconsumeTimes
  PushConsumer c(fastPushOptions(node, uniqueName("rg")));
  REQUIRE(c.subscribe(topic, "*").ok());
  c.registerListener([&](const std::vector<MessageExt>& msgs, const MessageQueue&) {
    std::lock_guard lk(mu);
    for (auto& m : msgs) deliveries.push_back({m.topic, m.reconsumeTimes});
    return deliveries.size() == 1 ? ConsumeStatus::RECONSUME_LATER : ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(c.start().ok());
  REQUIRE_OK(producer->send(makeMessage(topic, "", "", "retry-me")));
  REQUIRE(eventually([&] { std::lock_guard lk(mu); return deliveries.size() >= 2; }, std::chrono::seconds(30)));
  {
    std::lock_guard lk(mu);
    CHECK(deliveries[0].second == 0);
    CHECK(deliveries[1].first == topic);  // the real topic is restored from RETRY_TOPIC
    CHECK(deliveries[1].second == 1);
  }
  c.shutdown();
  producer->shutdown();
}

TEST_CASE_FIXTURE(NodeWithProducer, "client push consumer: SQL92 subscription filters on properties") {
  std::string topic = newTopic("SqlTopic", 2);
  for (int i = 0; i < 10; ++i) {
    Message m = makeMessage(topic, i % 2 ? "TagA" : "TagB", "", "s" + std::to_string(i));
    m.putProperty("n", std::to_string(i));
    REQUIRE_OK(producer->send(m));
  }
  Ledger ledger;
  PushConsumer c(fastPushOptions(node, uniqueName("sqlg")));
  REQUIRE(c.subscribe(topic, "n >= 4 AND TAGS = 'TagA'", filter::ExpressionType::Sql92).ok());
  CHECK(c.subscribe(topic, "n >>= 4", filter::ExpressionType::Sql92).error().code == 23);
  c.registerListener(ledger.listener("S"));
  REQUIRE(c.start().ok());
  REQUIRE(eventually([&] { return ledger.distinct() == 3; }, std::chrono::seconds(20)));  // s5, s7, s9
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK(ledger.total() == 3);
  {
    std::lock_guard lk(ledger.mu);
    for (const char* b : {"s5", "s7", "s9"}) CHECK(ledger.byBody.count(b) == 1);
  }
  c.shutdown();
  producer->shutdown();
}
