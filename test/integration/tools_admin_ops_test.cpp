// rmqadmin's name server, permission, offset, queue and maintenance verbs (mqadmin 4.9.8's
// updateKvConfig ... clusterRT) against a real rmqnode: each verb's effect is read back another way
// (GET_KV_CONFIG through the AdminClient, the topic route, consumer offsets, the send path).
#include <doctest/doctest.h>

#include <atomic>
#include <set>

#include "client/admin/admin_client.h"
#include "client/broker_api.h"
#include "client/message_helpers.h"
#include "client_fixture.h"
#include "common/message_id.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

// An AdminClient of the node, started (REQUIREd): reads the effects back without rmqadmin.
std::unique_ptr<client::AdminClient> adminClientOf(const DevNode& node) {
  auto a = std::make_unique<client::AdminClient>(node.clientConfig());
  REQUIRE(a->start());
  return a;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The perm of the topic's (single) queue data as the name server answers it.
int64_t routePerm(const DevNode& node, const std::string& topic) {
  auto route = adminJson(node, "topicRoute", {"-t", topic});
  auto& qd = route["route"]["queueDatas"];
  REQUIRE(qd.Size() == 1);
  return qd[0]["perm"].GetInt();
}

// A fresh producer's send to `topic` (its own route lookup, so the name server's current view).
Result<client::SendResult> sendOnce(const DevNode& node, const std::string& topic) {
  auto producer = startProducer(producerOptions(node));
  auto sent = producer->send(client::makeMessage(topic, "TagA", "", "perm probe"));
  producer->shutdown();
  return sent;
}

}  // namespace

TEST_CASE("rmqadmin KV and name server config verbs: updateKvConfig, deleteKvConfig, updateOrderConf, "
          "getNamesrvConfig, updateNamesrvConfig") {
  DevNode node;
  REQUIRE(node.start());
  auto reader = adminClientOf(node);
  std::string ns = uniqueName("NS");

  auto put = admin(node, "updateKvConfig", {"-s", ns, "-k", "k1", "-v", "v1"});
  REQUIRE_MESSAGE(put.exitCode == 0, (describe(put)));
  CHECK(put.out == "create or update kv config to namespace success.\n");
  auto value = reader->run(reader->asyncGetKvConfig(ns, "k1"));
  REQUIRE(value);
  CHECK(*value == "v1");

  auto del = admin(node, "deleteKvConfig", {"-s", ns, "-k", "k1"});
  REQUIRE_MESSAGE(del.exitCode == 0, (describe(del)));
  CHECK(del.out == "delete kv config from namespace success.\n");
  CHECK(!reader->run(reader->asyncGetKvConfig(ns, "k1")));
  CHECK(admin(node, "updateKvConfig", {"-s", ns, "-k", "k1"}).exitCode == 2);  // -v is required

  // getNamesrvConfig: one block per name server, the node's own settings.
  auto cfg = adminJson(node, "getNamesrvConfig");
  REQUIRE(cfg.HasMember(node.namesrvAddr.c_str()));
  CHECK(std::string(cfg[node.namesrvAddr.c_str()]["listenPort"].GetString()) == std::to_string(node.nsPort));
  CHECK(contains(admin(node, "getNamesrvConfig").out, "============" + node.namesrvAddr + "============"));

  // updateNamesrvConfig orderMessageEnable=true: routes then carry the ORDER_TOPIC_CONFIG entry
  // that updateOrderConf puts.
  auto upd = admin(node, "updateNamesrvConfig", {"-k", "orderMessageEnable", "-v", "true"});
  REQUIRE_MESSAGE(upd.exitCode == 0, (describe(upd)));
  CHECK(upd.out == "update name server config success![" + node.namesrvAddr + "]\norderMessageEnable : true\n");
  CHECK(std::string(adminJson(node, "getNamesrvConfig")[node.namesrvAddr.c_str()]["orderMessageEnable"].GetString()) ==
        "true");
  auto refused = admin(node, "updateNamesrvConfig", {"-k", "kvConfigPath", "-v", "/tmp/x"});
  CHECK(refused.exitCode == 1);
  CHECK(contains(refused.err, "Can not update config path"));

  std::string topic = uniqueName("OrderConfTopic");
  REQUIRE(node.createTopic(topic, 2));
  auto order = admin(node, "updateOrderConf", {"-t", topic, "-m", "put", "-v", "broker-a:2"});
  REQUIRE_MESSAGE(order.exitCode == 0, (describe(order)));
  CHECK(order.out == "update orderConf success. topic=[" + topic + "], orderConf=[broker-a:2]\n");
  auto route = adminJson(node, "topicRoute", {"-t", topic});
  REQUIRE(route["route"].HasMember("orderTopicConf"));
  CHECK(std::string(route["route"]["orderTopicConf"].GetString()) == "broker-a:2");
  CHECK(admin(node, "updateOrderConf", {"-t", topic, "-m", "get"}).out ==
        "get orderConf success. topic=[" + topic + "], orderConf=[broker-a:2] \n");
  CHECK(admin(node, "updateOrderConf", {"-t", topic, "-m", "put"}).exitCode == 1);  // no -v
  CHECK(admin(node, "updateOrderConf", {"-t", topic, "-m", "delete"}).exitCode == 0);
  CHECK(!reader->run(reader->asyncGetKvConfig("ORDER_TOPIC_CONFIG", topic)));
  CHECK(admin(node, "updateOrderConf", {"-t", topic, "-m", "bogus"}).exitCode == 2);
  reader->shutdown();
}

TEST_CASE("rmqadmin permission verbs: topicClusterList, wipeWritePerm, addWritePerm, updateTopicPerm") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("PermTopic");
  REQUIRE(node.createTopic(topic, 2));

  CHECK(admin(node, "topicClusterList", {"-t", topic}).out == "DefaultCluster\n");
  CHECK(admin(node, "topicClusterList", {"-t", uniqueName("NoSuchTopic")}).exitCode == 1);

  // wipeWritePerm: the name server's queue data become read-only; a producer finds no writable
  // queue and its send fails (Java: "No route info of this topic"), while reads still route.
  auto wipe = admin(node, "wipeWritePerm", {"-b", "broker-a"});
  REQUIRE_MESSAGE(wipe.exitCode == 0, (describe(wipe)));
  CHECK(contains(wipe.out, "wipe write perm of broker[broker-a] in name server[" + node.namesrvAddr + "] OK, "));
  CHECK(routePerm(node, topic) == 4);
  auto refused = sendOnce(node, topic);
  CHECK(!refused);
  CHECK(admin(node, "topicStatus", {"-t", topic}).exitCode == 0);

  auto add = admin(node, "addWritePerm", {"-b", "broker-a"});
  REQUIRE_MESSAGE(add.exitCode == 0, (describe(add)));
  CHECK(contains(add.out, "add write perm of broker[broker-a] in name server[" + node.namesrvAddr + "] OK, "));
  CHECK(routePerm(node, topic) == 6);
  CHECK(sendOnce(node, topic));

  // updateTopicPerm changes the broker's topic config (then its registration, the route).
  auto ro = admin(node, "updateTopicPerm", {"-b", node.brokerAddr, "-t", topic, "-p", "4"});
  REQUIRE_MESSAGE(ro.exitCode == 0, (describe(ro)));
  CHECK(contains(ro.out, "update topic perm from 6 to 4 in " + node.brokerAddr + " success.\n"));
  CHECK(contains(ro.out, "TopicConfig [topicName=" + topic + ", readQueueNums=2, writeQueueNums=2, perm=R--"));
  CHECK(eventually([&] { return routePerm(node, topic) == 4; }, std::chrono::seconds(10)));
  CHECK(!sendOnce(node, topic));
  CHECK(admin(node, "updateTopicPerm", {"-b", node.brokerAddr, "-t", topic, "-p", "4"}).out ==
        "new perm equals to the old one!\n");
  auto rw = admin(node, "updateTopicPerm", {"-c", "DefaultCluster", "-t", topic, "-p", "6"});
  REQUIRE_MESSAGE(rw.exitCode == 0, (describe(rw)));
  CHECK(rw.out == "update topic perm from 4 to 6 in " + node.brokerAddr + " success.\n");
  CHECK(eventually([&] { return routePerm(node, topic) == 6; }, std::chrono::seconds(10)));
  CHECK(sendOnce(node, topic));

  auto notMaster = admin(node, "updateTopicPerm", {"-b", "127.0.0.1:1", "-t", topic, "-p", "4"});
  CHECK(notMaster.exitCode == 1);
  CHECK(contains(notMaster.err, "updateTopicPerm error broker not exit or broker is not master!."));
  CHECK(admin(node, "updateTopicPerm", {"-t", topic, "-p", "4"}).exitCode == 2);  // neither -b nor -c
}

TEST_CASE("rmqadmin offset and queue verbs: brokerConsumeStats, cloneGroupOffset, getConsumerConfig, queryCq, "
          "allocateMQ") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("OpsTopic");
  std::string group = uniqueName("OpsCG");
  REQUIRE(node.createTopic(topic, 2));
  REQUIRE(admin(node, "updateSubGroup", {"-b", node.brokerAddr, "-g", group, "-r", "5"}).exitCode == 0);

  auto producer = startProducer(producerOptions(node));
  auto sent = sendBodies(*producer, topic, "ops-", 10);
  producer->shutdown();

  client::PushConsumer consumer(fastPushOptions(node, group));
  REQUIRE(consumer.subscribe(topic, "*"));
  std::atomic<int> consumed{0};
  consumer.registerListener([&](const std::vector<MessageExt>& m, const client::MessageQueue&) {
    consumed += static_cast<int>(m.size());
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start());
  REQUIRE(eventually([&] { return consumed.load() >= 10; }, std::chrono::seconds(20)));

  // brokerConsumeStats: the online group's queues of the topic, all consumed.
  rapidjson::Document stats;
  int64_t brokerTotal = 0, lag = -1;
  CHECK(eventually([&] {
    consumer.persistOffsetsNow();
    stats = adminJson(node, "brokerConsumeStats", {"-b", node.brokerAddr});
    brokerTotal = 0;
    lag = 0;
    for (auto& row : rows(stats, "queues").GetArray()) {
      if (str(row, "#Topic") != topic || str(row, "#Group") != group) continue;
      brokerTotal += num(row, "#Broker Offset");
      lag += num(row, "#Diff");
    }
    return brokerTotal == 10 && lag == 0;
  }, std::chrono::seconds(15)));
  CHECK(brokerTotal == 10);
  CHECK(std::string(stats["summary"]["Diff Total"].GetString()) == "0");
  auto statsText = admin(node, "brokerConsumeStats", {"-b", node.brokerAddr});
  CHECK(statsText.out.rfind("#Topic", 0) == 0);
  CHECK(contains(statsText.out, "\nDiff Total: 0\n"));
  CHECK(admin(node, "brokerConsumeStats", {"-b", node.brokerAddr, "-l", "1", "--json"}).out.find(topic) ==
        std::string::npos);  // nothing lags by 1 or more

  // cloneGroupOffset: the destination group gets the source's committed offset on every queue.
  std::string dest = uniqueName("OpsCloneCG");
  auto clone = admin(node, "cloneGroupOffset", {"-s", group, "-d", dest, "-t", topic});
  REQUIRE_MESSAGE(clone.exitCode == 0, (describe(clone)));
  CHECK(clone.out == "clone group offset success. srcGroup[" + group + "], destGroup=[" + dest + "], topic[" + topic +
                         "]\n");
  consumer.shutdown();
  auto reader = adminClientOf(node);
  int64_t copiedTotal = 0;
  for (int q = 0; q < 2; ++q) {
    client::MessageQueue mq{topic, "broker-a", q};
    auto src = reader->run(client::queryConsumerOffset(reader->instance(), group, mq));
    auto dst = reader->run(client::queryConsumerOffset(reader->instance(), dest, mq));
    REQUIRE(src);
    REQUIRE(dst);
    CHECK(*dst == *src);
    copiedTotal += *dst;
  }
  CHECK(copiedTotal == 10);

  reader->shutdown();

  // getConsumerConfig: the group's config block of broker-a.
  auto gc = adminJson(node, "getConsumerConfig", {"-g", group});
  REQUIRE(gc.HasMember("broker-a"));
  CHECK(std::string(gc["broker-a"]["retryMaxTimes"].GetString()) == "5");
  CHECK(std::string(gc["broker-a"]["groupName"].GetString()) == group);
  CHECK(contains(admin(node, "getConsumerConfig", {"-g", group}).out,
                 "=============================DefaultCluster:broker-a============================="));
  CHECK(admin(node, "getConsumerConfig", {"-g", uniqueName("NoGroup")}).out.empty());

  // queryCq: the units of queue 0 point at the commit log offsets the sends reported.
  std::set<int64_t> expected;
  for (auto& s : sent)
    if (s.queue.queueId == 0) expected.insert(parseOffsetMsgId(s.offsetMsgId)->commitLogOffset);
  auto cq = adminJson(node, "queryCq", {"-t", topic, "-q", "0", "-i", "0", "-c", "32"});
  std::set<int64_t> listed;
  for (auto& row : rows(cq, "queueData").GetArray()) listed.insert(num(row, "#physicOffset"));
  CHECK(listed == expected);
  CHECK(std::string(cq["queue"]["max"].GetString()) == std::to_string(expected.size()));
  auto cqText = admin(node, "queryCq", {"-t", topic, "-q", "0", "-i", "0", "-c", "1"});
  CHECK(contains(cqText.out, "Queue data: \nmax: " + std::to_string(expected.size()) + ", min: 0\n"));
  CHECK(contains(cqText.out, "idx: 0\nConsumeQueueData{physicOffset=" + std::to_string(*expected.begin())));
  CHECK(admin(node, "queryCq", {"-t", topic, "-q", "7", "-i", "0"}).exitCode == 1);  // no such queue

  // allocateMQ: AllocateMessageQueueAveragely over the two client ids, one queue each.
  auto alloc = adminJson(node, "allocateMQ", {"-t", topic, "-i", "cidA,cidB"});
  auto& result = alloc["rebalance"]["result"];
  REQUIRE(result["cidA"].Size() == 1);
  REQUIRE(result["cidB"].Size() == 1);
  CHECK(result["cidA"][0]["queueId"].GetInt() == 0);
  CHECK(result["cidB"][0]["queueId"].GetInt() == 1);
  CHECK(admin(node, "allocateMQ", {"-t", topic, "-i", "cidA"}).out ==
        "{\"result\":{\"cidA\":[{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"" + topic +
            "\"},{\"brokerName\":\"broker-a\",\"queueId\":1,\"topic\":\"" + topic + "\"}]}}\n");

  // skipAccumulatedMessage with the consumer gone: the offsets move to the queues' max offsets
  // (set directly, as mqadmin's resetOffsetByTimestampOld does for an offline group).
  auto more = startProducer(producerOptions(node));
  sendBodies(*more, topic, "late-", 3);
  more->shutdown();
  REQUIRE(eventually([&] {
    int64_t max = 0;
    for (auto& row : rows(adminJson(node, "topicStatus", {"-t", topic}), "queues").GetArray()) max += num(row, "#Max Offset");
    return max == 13;
  }, std::chrono::seconds(10)));
  auto skip = adminJson(node, "skipAccumulatedMessage", {"-g", group, "-t", topic});
  int64_t skippedTo = 0;
  for (auto& row : rows(skip, "offsets").GetArray()) skippedTo += num(row, "#offset");
  CHECK(skippedTo == 13);
  int64_t committed = 0;
  reader->shutdown();
  reader = adminClientOf(node);
  for (int q = 0; q < 2; ++q) {
    const client::MessageQueue mq{topic, "broker-a", q};  // named: no braced temporary into a coroutine (GCC 12)
    auto off = reader->run(client::queryConsumerOffset(reader->instance(), group, mq));
    REQUIRE(off);
    committed += *off;
  }
  CHECK(committed == 13);
  reader->shutdown();
}

TEST_CASE("rmqadmin maintenance and send-time verbs: cleanExpiredCQ, cleanUnusedTopic, deleteExpiredCommitLog, "
          "clusterRT, sendMsgStatus") {
  DevNode node;
  REQUIRE(node.start());
  for (const char* verb : {"cleanExpiredCQ", "cleanUnusedTopic", "deleteExpiredCommitLog"}) {
    CAPTURE(verb);
    auto one = admin(node, verb, {"-b", node.brokerAddr});
    CHECK_MESSAGE(one.exitCode == 0, (describe(one)));
    CHECK(one.out == "success\n");
    CHECK(admin(node, verb, {"-c", "DefaultCluster"}).out == "success\n");
    CHECK(admin(node, verb).out == "success\n");  // every cluster
    auto unknown = admin(node, verb, {"-c", "NoSuchCluster"});
    CHECK(unknown.exitCode == 1);
    auto down = admin(node, verb, {"-b", "127.0.0.1:" + std::to_string(freePort())});
    CHECK(down.exitCode == 1);
    CHECK(down.out == "false\n");
  }

  // clusterRT sends to the topic named after each broker: broker-a's topic grows by -a messages.
  auto maxOffsets = [&] {
    int64_t sum = 0;
    for (auto& row : rows(adminJson(node, "topicStatus", {"-t", "broker-a"}), "queues").GetArray())
      sum += num(row, "#Max Offset");
    return sum;
  };
  int64_t before = maxOffsets();
  auto rt = adminJson(node, "clusterRT", {"-a", "3", "-s", "16"});
  auto& rtRows = rows(rt, "rt");
  REQUIRE(rtRows.Size() == 1);
  CHECK(str(rtRows[0], "#Cluster Name") == "DefaultCluster");
  CHECK(str(rtRows[0], "#Broker Name") == "broker-a");
  CHECK(num(rtRows[0], "#successCount") == 3);
  CHECK(num(rtRows[0], "#failCount") == 0);
  CHECK(eventually([&] { return maxOffsets() == before + 3; }, std::chrono::seconds(10)));
  auto tlog = admin(node, "clusterRT", {"-a", "2", "-p", "true", "-m", "room1", "-c", "DefaultCluster"});
  CHECK(contains(tlog.out, "|room1|DefaultCluster|broker-a|"));
  CHECK(admin(node, "clusterRT", {"-c", "NoSuchCluster"}).exitCode == 1);

  auto status = admin(node, "sendMsgStatus", {"-b", "broker-a", "-c", "2", "-s", "32"});
  REQUIRE_MESSAGE(status.exitCode == 0, (describe(status)));
  size_t lines = 0;
  for (size_t pos = 0; (pos = status.out.find("SendResult=SendResult [sendStatus=SEND_OK, msgId=", pos)) != std::string::npos;
       ++pos)
    ++lines;
  CHECK(lines == 2);
  CHECK(contains(status.out, "messageQueue=MessageQueue [topic=broker-a, brokerName=broker-a, queueId="));
  // clusterRT 3 + 2, sendMsgStatus a warm-up send + 2
  CHECK(eventually([&] { return maxOffsets() == before + 3 + 2 + 1 + 2; }, std::chrono::seconds(10)));
}

TEST_CASE("rmqadmin export verbs: exportMetadata, exportConfigs") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("ExportTopic");
  std::string group = uniqueName("ExportCG");
  REQUIRE(node.createTopic(topic, 3));
  REQUIRE(admin(node, "updateSubGroup", {"-b", node.brokerAddr, "-g", group, "-q", "2"}).exitCode == 0);
  REQUIRE(admin(node, "updateSubGroup", {"-b", node.brokerAddr, "-g", "TOOLS_CONSUMER"}).exitCode == 0);
  std::string dir = node.proc.path("export");
  auto parseFile = [&](const std::string& name) {
    rapidjson::Document doc;
    std::string text = node.proc.readFile("export/" + name);
    REQUIRE_MESSAGE(json::parse(text, doc).ok(), ("not JSON: " + text));
    REQUIRE(doc.IsObject());
    return doc;
  };

  // A cluster: user topics and groups of its masters, no system topic or group, no %RETRY%.
  auto all = admin(node, "exportMetadata", {"-c", "DefaultCluster", "-f", dir});
  REQUIRE_MESSAGE(all.exitCode == 0, (describe(all)));
  CHECK(all.out == "export " + dir + "/metadata.json success\n");
  auto meta = parseFile("metadata.json");
  CHECK(meta["exportTime"].IsInt64());
  auto& topics = meta["topicConfigTable"];
  REQUIRE(topics.HasMember(topic.c_str()));
  CHECK(topics[topic.c_str()]["writeQueueNums"].GetInt() == 3);
  CHECK(topics[topic.c_str()]["perm"].GetInt() == 6);
  CHECK(!topics.HasMember("TBW102"));  // a system topic of the broker
  CHECK(!topics.HasMember("broker-a"));
  for (auto& m : topics.GetObject()) CHECK(std::string(m.name.GetString()).rfind("%RETRY%", 0) != 0);
  auto& groups = meta["subscriptionGroupTable"];
  REQUIRE(groups.HasMember(group.c_str()));
  CHECK(groups[group.c_str()]["retryQueueNums"].GetInt() == 2);
  CHECK(!groups.HasMember("TOOLS_CONSUMER"));

  // One broker: topics (-t) or groups (-g) only.
  auto onlyTopics = admin(node, "exportMetadata", {"-b", node.brokerAddr, "-t", "-f", dir});
  REQUIRE_MESSAGE(onlyTopics.exitCode == 0, (describe(onlyTopics)));
  CHECK(onlyTopics.out == "export " + dir + "/topic.json success\n");
  auto topicFile = parseFile("topic.json");
  CHECK(topicFile["topicConfigTable"].HasMember(topic.c_str()));
  CHECK(!topicFile.HasMember("subscriptionGroupTable"));
  REQUIRE(admin(node, "exportMetadata", {"-b", node.brokerAddr, "-g", "-f", dir}).exitCode == 0);
  CHECK(parseFile("subscriptionGroup.json")["subscriptionGroupTable"].HasMember(group.c_str()));
  CHECK(admin(node, "exportMetadata", {"-f", dir}).exitCode == 2);  // neither -b nor -c

  auto configs = admin(node, "exportConfigs", {"-c", "DefaultCluster", "-f", dir});
  REQUIRE_MESSAGE(configs.exitCode == 0, (describe(configs)));
  CHECK(configs.out == "export " + dir + "/configs.json success\n");
  auto cfg = parseFile("configs.json");
  CHECK(std::string(cfg["brokerConfigs"]["broker-a"]["brokerClusterName"].GetString()) == "DefaultCluster");
  CHECK(std::string(cfg["brokerConfigs"]["broker-a"]["brokerRole"].GetString()) == "ASYNC_MASTER");
  CHECK(cfg["clusterScale"]["masterBrokerSize"].GetInt() == 1);
  CHECK(cfg["clusterScale"]["slaveBrokerSize"].GetInt() == 0);
  CHECK(cfg["clusterScale"]["namesrvSize"].GetInt() == 1);
  CHECK(admin(node, "exportConfigs", {"-c", "NoSuchCluster", "-f", dir}).exitCode == 1);
}
