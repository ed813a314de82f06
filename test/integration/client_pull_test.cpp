// Pull consumer statuses against a real rmqnode: FOUND, NO_NEW_MSG, NO_MATCHED_MSG,
// OFFSET_ILLEGAL, a blocking pull woken by a send, SQL92 filtering, broker-side offsets.
#include <doctest/doctest.h>

#include <future>

#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "client_fixture.h"
#include "dev_node.h"
#include "require_ok.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

TEST_CASE("client pull consumer: statuses, long poll wake-up, SQL92 and offsets") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("PullTopic");
  REQUIRE(node.createTopic(topic, 1));
  auto producer = startProducer(producerOptions(node));
  PullConsumerOptions co = pullOptions(node, uniqueName("pullg"));
  co.brokerSuspendMaxTime = std::chrono::milliseconds(5000);
  PullConsumer pc(co);
  REQUIRE(pc.start().ok());

  auto queues = pc.fetchSubscribeMessageQueues(topic);
  REQUIRE_MESSAGE(queues.ok(), queues.error().message);
  REQUIRE(queues->size() == 1);
  MessageQueue mq = queues->front();

  auto empty = pc.pull(mq, "*", 0, 32);
  REQUIRE_MESSAGE(empty.ok(), empty.error().message);
  CHECK(empty->status == PullStatus::NO_NEW_MSG);

  for (int i = 0; i < 3; ++i) {
    Message m = makeMessage(topic, i == 1 ? "TagB" : "TagA", "", "m" + std::to_string(i));
    m.putProperty("n", std::to_string(i));
    REQUIRE_OK(producer->send(m, mq));
  }

  REQUIRE(eventually([&] { auto m = pc.maxOffset(mq); return m.ok() && *m == 3; }, std::chrono::seconds(10)));
  auto found = pc.pull(mq, "*", 0, 32);
  REQUIRE(found.ok());
  CHECK(found->status == PullStatus::FOUND);
  REQUIRE(found->messages.size() == 3);
  CHECK(found->nextBeginOffset == 3);
  CHECK(found->maxOffset == 3);
  CHECK(found->minOffset == 0);

  auto tagB = pc.pull(mq, "TagB", 0, 32);
  REQUIRE(tagB.ok());
  CHECK(tagB->status == PullStatus::FOUND);
  REQUIRE(tagB->messages.size() == 1);
  CHECK(tagB->messages[0].body == "m1");

  auto noMatch = pc.pull(mq, "TagZ", 0, 32);
  REQUIRE(noMatch.ok());
  CHECK(noMatch->status == PullStatus::NO_MATCHED_MSG);
  CHECK(noMatch->nextBeginOffset == 3);

  auto sql = pc.pull(mq, "n >= 1 AND TAGS = 'TagA'", 0, 32, filter::ExpressionType::Sql92);
  REQUIRE_MESSAGE(sql.ok(), sql.error().message);
  REQUIRE(sql->status == PullStatus::FOUND);
  REQUIRE(sql->messages.size() == 1);
  CHECK(sql->messages[0].body == "m2");
  auto badSql = pc.pull(mq, "n >>= 1", 0, 32, filter::ExpressionType::Sql92);
  REQUIRE_FALSE(badSql.ok());
  CHECK(badSql.error().code == 23);

  auto atEnd = pc.pull(mq, "*", 3, 32);
  REQUIRE(atEnd.ok());
  CHECK(atEnd->status == PullStatus::NO_NEW_MSG);
  auto beyond = pc.pull(mq, "*", 50, 32);
  REQUIRE(beyond.ok());
  CHECK(beyond->status == PullStatus::OFFSET_ILLEGAL);
  CHECK(beyond->nextBeginOffset == 0);  // Java: OFFSET_OVERFLOW_BADLY corrects to minOffset when it is 0

  // A blocking pull parks on the broker and returns as soon as a message is sent.
  auto parked = std::async(std::launch::async, [&] { return pc.pullBlockIfNotFound(mq, "*", 3, 32); });
  CHECK(parked.wait_for(std::chrono::milliseconds(500)) == std::future_status::timeout);
  auto sendStart = std::chrono::steady_clock::now();
  REQUIRE_OK(producer->send(makeMessage(topic, "TagA", "", "wake"), mq));
  REQUIRE(parked.wait_for(std::chrono::seconds(4)) == std::future_status::ready);
  auto woke = parked.get();
  REQUIRE(woke.ok());
  CHECK(woke->status == PullStatus::FOUND);
  REQUIRE(woke->messages.size() == 1);
  CHECK(woke->messages[0].body == "wake");
  CHECK(std::chrono::steady_clock::now() - sendStart < std::chrono::seconds(4));

  // Without a message the blocking pull ends with NO_NEW_MSG after the suspend time.
  auto timedOut = pc.pullBlockIfNotFound(mq, "*", 4, 32);
  REQUIRE(timedOut.ok());
  CHECK(timedOut->status == PullStatus::NO_NEW_MSG);

  CHECK(pc.maxOffset(mq).value() == 4);  // (the woken pull proved "wake" was dispatched)
  CHECK(pc.minOffset(mq).value() == 0);
  REQUIRE(pc.updateConsumeOffset(mq, 2).ok());
  auto stored = pc.fetchConsumeOffset(mq);
  REQUIRE(stored.ok());
  CHECK(*stored == 2);

  pc.shutdown();
  producer->shutdown();
}
