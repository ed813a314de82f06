// OrderlyQueue (one consume task per queue, batches in queue order, retry in place) and the
// LOCK_BATCH_MQ body / answer shapes.
#include <doctest/doctest.h>

#include "client/consumer/orderly_lock.h"
#include "client/consumer/orderly_queue.h"
#include "client/consumer/push_consumer.h"
#include "unit/client/queued_messages.h"

#include <limits>

using namespace rmq;
using namespace rmq::client;

using rmq::client::test::messagesAt;

TEST_CASE("orderly queue: batches in queue order, one task at a time, rollback retries in front") {
  OrderlyQueue q;
  CHECK(q.put(messagesAt({5, 3, 4})));      // first put starts the task
  CHECK_FALSE(q.put(messagesAt({6})));      // task running: no second one
  auto b = q.take(2);
  REQUIRE(b.size() == 2);
  CHECK(b[0].queueOffset == 3);
  CHECK(b[1].queueOffset == 4);
  b[0].reconsumeTimes = 1;
  q.rollback(b);                         // SUSPEND: the same batch again, before 5 and 6
  auto again = q.take(2);
  REQUIRE(again.size() == 2);
  CHECK(again[0].queueOffset == 3);
  CHECK(again[0].reconsumeTimes == 1);
  CHECK(q.take(10).size() == 2);         // 5, 6
  CHECK(q.take(10).empty());             // task ends
  CHECK(q.put(messagesAt({7})));             // so the next put starts one
}

TEST_CASE("orderly locks: request body and lockOKMQSet answer") {
  std::vector<MessageQueue> mqs{{"T", "broker-a", 0}, {"T", "broker-a", 3}};
  auto body = encodeLockBody("g", "c1", mqs);
  CHECK(body ==
        "{\"clientId\":\"c1\",\"consumerGroup\":\"g\",\"mqSet\":[{\"brokerName\":\"broker-a\",\"queueId\":0,"
        "\"topic\":\"T\"},{\"brokerName\":\"broker-a\",\"queueId\":3,\"topic\":\"T\"}]}");
  auto got = decodeLockedSet("{\"lockOKMQSet\":[{\"brokerName\":\"broker-a\",\"queueId\":3,\"topic\":\"T\"}]}");
  REQUIRE(got);
  REQUIRE(got->size() == 1);
  CHECK(got->front() == mqs[1]);
  CHECK_FALSE(decodeLockedSet("not json"));
}

TEST_CASE("maxReconsumeTimes -1 resolves as Java's getMaxReconsumeTimes: 16 concurrent, unlimited orderly") {
  PushConsumerOptions o;
  o.group = "g";
  CHECK(o.maxReconsumeTimes == -1);
  PushConsumer concurrent(o);
  concurrent.registerListener(
      MessageListener([](const std::vector<MessageExt>&, const MessageQueue&) { return ConsumeStatus::CONSUME_SUCCESS; }));
  CHECK(concurrent.maxReconsumeTimes() == 16);
  PushConsumer orderly(o);
  orderly.registerListener(
      OrderlyListener([](const std::vector<MessageExt>&, const MessageQueue&) { return ConsumeOrderlyStatus::SUCCESS; }));
  CHECK(orderly.maxReconsumeTimes() == std::numeric_limits<int>::max());
  o.maxReconsumeTimes = 3;
  PushConsumer set(o);
  set.registerListener(
      OrderlyListener([](const std::vector<MessageExt>&, const MessageQueue&) { return ConsumeOrderlyStatus::SUCCESS; }));
  CHECK(set.maxReconsumeTimes() == 3);
}

TEST_CASE("orderly queue: the batch the listener holds is 'consuming' until committed or rolled back") {
  OrderlyQueue q;
  q.put(messagesAt({8, 9, 10}));
  CHECK(q.consuming().count == 0);
  auto b = q.take(2);
  auto c = q.consuming();  // Java's transactionMsgMinOffset / MaxOffset / Count
  CHECK(c.minOffset == 8);
  CHECK(c.maxOffset == 9);
  CHECK(c.count == 2);
  q.rollback(b);
  CHECK(q.consuming().count == 0);
  b = q.take(3);
  CHECK(q.consuming().count == 3);
  q.commit();
  CHECK(q.consuming().count == 0);
  CHECK(q.consuming().maxOffset == 0);
}
