// AdminClient against a real rmqnode: cluster list, topic create/route/list/stats/delete, KV
// config, broker runtime info and config, subscription groups, consume stats, connections,
// message queries by id/key/offset, reset offset by time.
#include <doctest/doctest.h>

#include <algorithm>

#include "client/admin/admin_client.h"
#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/pull_consumer.h"
#include "common/response_code.h"
#include "client_fixture.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;

TEST_CASE("client admin API: topics, KV, brokers, groups and message queries") {
  DevNode node;
  REQUIRE(node.start());
  AdminClient admin(node.clientConfig());
  REQUIRE(admin.start().ok());

  auto cluster = admin.run(admin.asyncClusterInfo());
  REQUIRE_MESSAGE(cluster.ok(), cluster.error().message);
  REQUIRE(cluster->clusterAddrTable.count("DefaultCluster"));
  CHECK(*cluster->brokerAddrTable.at("broker-a").masterAddr() == node.brokerAddr);

  std::string topic = uniqueName("AdminTopic");
  TopicConfigSpec spec;
  spec.topicName = topic;
  spec.readQueueNums = spec.writeQueueNums = 3;
  auto created = admin.run(admin.asyncCreateTopic(spec, "DefaultCluster"));
  REQUIRE_MESSAGE(created.ok(), created.error().message);
  CHECK(created->size() == 1);
  REQUIRE(eventually([&] { return admin.run(admin.asyncTopicRoute(topic)).ok(); }, std::chrono::seconds(10)));
  auto route = admin.run(admin.asyncTopicRoute(topic));
  REQUIRE(route->queueDatas.size() == 1);
  CHECK(route->queueDatas[0].writeQueueNums == 3);
  auto topics = admin.run(admin.asyncTopicList());
  REQUIRE(topics.ok());
  CHECK(std::find(topics->begin(), topics->end(), topic) != topics->end());

  ProducerOptions po = producerOptions(node, uniqueName("adminpg"));
  Producer producer(po);
  REQUIRE(producer.start().ok());
  auto sent = producer.send(makeMessage(topic, "TagA", "orderKey42", "admin body"));
  REQUIRE(sent.ok());

  // The consume queue and index are written asynchronously after the send: wait for them.
  int64_t total = 0;
  size_t queueCount = 0;
  CHECK(eventually([&] {
    auto stats = admin.run(admin.asyncTopicStats(topic));
    if (!stats.ok()) return false;
    queueCount = stats->size();
    total = 0;
    for (auto& s : *stats) total += s.maxOffset - s.minOffset;
    return total == 1;
  }, std::chrono::seconds(10)));
  CHECK(queueCount == 3);
  CHECK(total == 1);
  CHECK(eventually([&] { return admin.run(admin.asyncQueryMessageByKey(topic, "orderKey42", 32, 0, INT64_MAX)).ok(); },
                  std::chrono::seconds(10)));

  auto byId = admin.run(admin.asyncViewMessage(sent->offsetMsgId));
  REQUIRE_MESSAGE(byId.ok(), byId.error().message);
  CHECK(byId->body == "admin body");
  auto byKey = admin.run(admin.asyncQueryMessageByKey(topic, "orderKey42", 32, 0, INT64_MAX));
  REQUIRE_MESSAGE(byKey.ok(), byKey.error().message);
  CHECK(byKey->front().body == "admin body");
  auto byUniq = admin.run(admin.asyncQueryMessageByKey(topic, sent->msgId, 32, 0, INT64_MAX, true));
  REQUIRE(byUniq.ok());
  auto byOffset = admin.run(admin.asyncQueryMessageByOffset(sent->queue, sent->queueOffset));
  REQUIRE_MESSAGE(byOffset.ok(), byOffset.error().message);
  CHECK(byOffset->body == "admin body");
  auto missing = admin.run(admin.asyncQueryMessageByKey(topic, "nope", 32, 0, INT64_MAX));
  CHECK_FALSE(missing.ok());

  auto producers = admin.run(admin.asyncProducerConnection(po.group, topic));
  REQUIRE_MESSAGE(producers.ok(), producers.error().message);
  CHECK(producers->size() == 1);
  CHECK(producers->front().clientId == producer.instance().clientId());

  REQUIRE(admin.run(admin.asyncPutKvConfig("ns1", "k1", "v1")).ok());
  CHECK(admin.run(admin.asyncGetKvConfig("ns1", "k1")).value() == "v1");
  REQUIRE(admin.run(admin.asyncDeleteKvConfig("ns1", "k1")).ok());
  auto gone = admin.run(admin.asyncGetKvConfig("ns1", "k1"));
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == ResponseCode::QUERY_NOT_FOUND);

  auto runtime = admin.run(admin.asyncBrokerRuntimeInfo(node.brokerAddr));
  REQUIRE_MESSAGE(runtime.ok(), runtime.error().message);
  CHECK(runtime->count("brokerVersionDesc"));
  auto config = admin.run(admin.asyncBrokerConfig(node.brokerAddr));
  REQUIRE(config.ok());
  CHECK(config->at("brokerName") == "broker-a");

  std::string group = uniqueName("admincg");
  SubscriptionGroupConfig gs;
  gs.groupName = group;
  auto updated = admin.run(admin.asyncUpdateSubscriptionGroup(node.brokerAddr, gs));
  REQUIRE_MESSAGE(updated.ok(), updated.error().message);
  PullConsumer pc(pullOptions(node, group));
  REQUIRE(pc.start().ok());
  REQUIRE(pc.updateConsumeOffset(sent->queue, 1).ok());
  auto consume = admin.run(admin.asyncConsumeStats(group, topic));
  REQUIRE_MESSAGE(consume.ok(), consume.error().message);
  bool sawQueue = false;
  for (auto& e : consume->offsets)
    if (e.queue == sent->queue) {
      sawQueue = true;
      CHECK(e.consumerOffset == 1);
      CHECK(e.brokerOffset == 1);
    }
  CHECK(sawQueue);
  auto reset = admin.run(admin.asyncResetOffsetByTime(group, topic, 0));
  REQUIRE_MESSAGE(reset.ok(), reset.error().message);
  CHECK(pc.fetchConsumeOffset(sent->queue).value() == 0);
  pc.shutdown();
  REQUIRE(admin.run(admin.asyncDeleteSubscriptionGroup(node.brokerAddr, group, true)).ok());

  REQUIRE(admin.run(admin.asyncDeleteTopic(topic, "DefaultCluster")).ok());
  CHECK(eventually([&] { return !admin.run(admin.asyncTopicRoute(topic)).ok(); }, std::chrono::seconds(10)));
  producer.shutdown();
  admin.shutdown();
}
