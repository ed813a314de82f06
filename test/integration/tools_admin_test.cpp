// rmqadmin verbs against a real rmqnode (dev mode): each verb's output checked against what the
// node holds, in text and --json form, plus exit codes for failures and usage errors.
#include <doctest/doctest.h>

#include "client/message_helpers.h"
#include "client/producer/producer.h"
#include "client/consumer/push_consumer.h"
#include "client_fixture.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

std::vector<client::SendResult> sendSome(const DevNode& node, const std::string& topic, int n, const std::string& group,
                                         const std::string& tag = "TagA") {
  auto producer = startProducer(producerOptions(node, group));
  auto sent = sendBodies(*producer, topic, "body-", n, tag, "key-");
  producer->shutdown();
  return sent;
}

}  // namespace

TEST_CASE("rmqadmin topic verbs: updateTopic, topicList, topicRoute, topicStatus, deleteTopic") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("AdminTopic");

  auto created = admin(node, "updateTopic", {"-b", node.brokerAddr, "-t", topic, "-r", "3", "-w", "3"});
  REQUIRE_MESSAGE(created.exitCode == 0, (describe(created)));
  CHECK(created.out.find("create topic to " + node.brokerAddr + " success.") != std::string::npos);
  CHECK(created.out.find("TopicConfig [topicName=" + topic + ", readQueueNums=3, writeQueueNums=3, perm=RW-") !=
        std::string::npos);
  REQUIRE(eventually([&] { return admin(node, "topicRoute", {"-t", topic}).exitCode == 0; }, std::chrono::seconds(10)));

  auto list = admin(node, "topicList");
  REQUIRE(list.exitCode == 0);
  CHECK(list.out.rfind("#Topic\n", 0) == 0);
  CHECK(list.out.find("\n" + topic + "\n") != std::string::npos);
  auto listJson = adminJson(node, "topicList");
  bool listed = false;
  for (auto& row : rows(listJson, "topics").GetArray()) listed |= str(row, "#Topic") == topic;
  CHECK(listed);

  auto route = adminJson(node, "topicRoute", {"-t", topic});
  REQUIRE(route.HasMember("route"));
  auto& qd = route["route"]["queueDatas"];
  REQUIRE(qd.Size() == 1);
  CHECK(qd[0]["readQueueNums"].GetInt() == 3);
  CHECK(qd[0]["writeQueueNums"].GetInt() == 3);
  CHECK(qd[0]["perm"].GetInt() == 6);
  CHECK(std::string(route["route"]["brokerDatas"][0]["brokerAddrs"]["0"].GetString()) == node.brokerAddr);
  auto routeText = admin(node, "topicRoute", {"-topic", topic});  // mqadmin's one-dash long name
  CHECK(routeText.out.find("\"brokerName\": \"broker-a\"") != std::string::npos);  // pretty-printed

  auto sent = sendSome(node, topic, 7, uniqueName("PG"));
  std::map<int, int64_t> expectedMax;
  for (auto& s : sent) expectedMax[s.queue.queueId] = std::max(expectedMax[s.queue.queueId], s.queueOffset + 1);
  // The consume queues are written by the store's dispatch, shortly after the sends returned.
  rapidjson::Document status;
  auto sumMax = [&] {
    status = adminJson(node, "topicStatus", {"-t", topic});
    int64_t sum = 0;
    for (auto& row : rows(status, "queues").GetArray()) sum += num(row, "#Max Offset");
    return sum;
  };
  CHECK(eventually([&] { return sumMax() == 7; }, std::chrono::seconds(10)));
  auto& qs = rows(status, "queues");
  REQUIRE(qs.Size() == 3);
  int64_t total = 0;
  for (auto& row : qs.GetArray()) {
    CHECK(str(row, "#Broker Name") == "broker-a");
    CHECK(num(row, "#Min Offset") == 0);
    int qid = static_cast<int>(num(row, "#QID"));
    CHECK(num(row, "#Max Offset") == (expectedMax.count(qid) ? expectedMax[qid] : 0));
    total += num(row, "#Max Offset");
  }
  CHECK(total == 7);
  auto statusText = admin(node, "topicStatus", {"-t", topic});
  CHECK(statusText.out.rfind("#Broker Name  #QID  #Min Offset  #Max Offset  #Last Updated", 0) == 0);

  auto del = admin(node, "deleteTopic", {"-c", "DefaultCluster", "-t", topic});
  REQUIRE_MESSAGE(del.exitCode == 0, (describe(del)));
  CHECK(del.out.find("delete topic [" + topic + "] from cluster [DefaultCluster] success.") != std::string::npos);
  auto gone = admin(node, "topicRoute", {"-t", topic, "--json"});
  CHECK(gone.exitCode == 1);
  CHECK(gone.out.find("\"error\"") != std::string::npos);
  CHECK(admin(node, "topicList").out.find("\n" + topic + "\n") == std::string::npos);
}

TEST_CASE("rmqadmin broker verbs: clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig") {
  DevNode node;
  REQUIRE(node.start());

  auto cluster = adminJson(node, "clusterList");
  auto& brokers = rows(cluster, "brokers");
  REQUIRE(brokers.Size() == 1);
  CHECK(str(brokers[0], "#Cluster Name") == "DefaultCluster");
  CHECK(str(brokers[0], "#Broker Name") == "broker-a");
  CHECK(num(brokers[0], "#BID") == 0);
  CHECK(str(brokers[0], "#Addr") == node.brokerAddr);
  CHECK(admin(node, "clusterList").out.rfind("#Cluster Name", 0) == 0);

  auto status = adminJson(node, "brokerStatus", {"-b", node.brokerAddr});
  REQUIRE(status.HasMember("status"));
  CHECK(status["status"].HasMember("brokerVersionDesc"));
  CHECK(status["status"].HasMember("putTps"));
  auto byCluster = admin(node, "brokerStatus", {"-c", "DefaultCluster"});
  CHECK(byCluster.exitCode == 0);
  CHECK(byCluster.out.find("brokerVersionDesc") != std::string::npos);

  auto cfg = adminJson(node, "getBrokerConfig", {"-b", node.brokerAddr});
  REQUIRE(cfg.HasMember("config"));
  CHECK(std::string(cfg["config"]["listenPort"].GetString()) == std::to_string(node.brokerPort));
  CHECK(std::string(cfg["config"]["brokerName"].GetString()) == "broker-a");

  auto upd = admin(node, "updateBrokerConfig", {"-b", node.brokerAddr, "-k", "flushConsumerOffsetInterval", "-v", "7000"});
  REQUIRE_MESSAGE(upd.exitCode == 0, (describe(upd)));
  CHECK(upd.out.find("update broker config success, " + node.brokerAddr) != std::string::npos);
  auto after = adminJson(node, "getBrokerConfig", {"-b", node.brokerAddr});
  CHECK(std::string(after["config"]["flushConsumerOffsetInterval"].GetString()) == "7000");

  auto bad = admin(node, "updateBrokerConfig", {"-b", node.brokerAddr, "-k", "flushConsumerOffsetInterval", "-v", "abc"});
  CHECK(bad.exitCode == 1);
  CHECK(!bad.err.empty());
  CHECK(std::string(adminJson(node, "getBrokerConfig", {"-b", node.brokerAddr})["config"]["flushConsumerOffsetInterval"]
                        .GetString()) == "7000");
}

TEST_CASE("rmqadmin group verbs: updateSubGroup, consumerProgress, consumer/producerConnection, resetOffsetByTime") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("AdminGroupTopic");
  std::string group = uniqueName("AdminCG");
  REQUIRE(node.createTopic(topic, 2));

  auto sub = admin(node, "updateSubGroup", {"-b", node.brokerAddr, "-g", group, "-r", "5"});
  REQUIRE_MESSAGE(sub.exitCode == 0, (describe(sub)));
  CHECK(sub.out.find("create subscription group to " + node.brokerAddr + " success.") != std::string::npos);
  CHECK(sub.out.find("retryMaxTimes=5") != std::string::npos);

  sendSome(node, topic, 10, uniqueName("PG"));
  client::PushConsumerOptions co = pushOptions(node, group);
  co.consumeFromWhere = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  co.persistConsumerOffsetInterval = std::chrono::milliseconds(200);
  client::PushConsumer consumer(co);
  REQUIRE(consumer.subscribe(topic, "*"));
  std::atomic<int> consumed{0};
  consumer.registerListener([&](const std::vector<MessageExt>& m, const client::MessageQueue&) {
    consumed += static_cast<int>(m.size());
    return client::ConsumeStatus::CONSUME_SUCCESS;
  });
  REQUIRE(consumer.start());
  REQUIRE(eventually([&] { return consumed.load() >= 10; }, std::chrono::seconds(20)));

  // Offsets are committed asynchronously: wait until the progress lists the topic's queues with
  // nothing left to consume.
  rapidjson::Document progress;
  auto topicTotals = [&](int64_t& brokerTotal, int64_t& diff) {
    brokerTotal = diff = 0;
    for (auto& row : rows(progress, "queues").GetArray()) {
      if (str(row, "#Topic") != topic) continue;
      brokerTotal += num(row, "#Broker Offset");
      diff += num(row, "#Diff");
    }
  };
  int64_t brokerTotal = 0, diff = -1;
  CHECK(eventually([&] {
    progress = adminJson(node, "consumerProgress", {"-g", group});
    topicTotals(brokerTotal, diff);
    return brokerTotal == 10 && diff == 0;
  }, std::chrono::seconds(15)));
  CHECK(brokerTotal == 10);
  CHECK(diff == 0);
  for (auto& row : rows(progress, "queues").GetArray())
    if (str(row, "#Topic") == topic) CHECK(num(row, "#Consumer Offset") == num(row, "#Broker Offset"));
  auto progressText = admin(node, "consumerProgress", {"-g", group});
  CHECK_MESSAGE(progressText.out.find("Diff Total: 0") != std::string::npos, progressText.out);

  // Without -g: one line per group found through its %RETRY% topic, with its online consumer.
  const rapidjson::Value* groupRow = nullptr;
  rapidjson::Document allGroups;
  CHECK(eventually([&] {
    allGroups = adminJson(node, "consumerProgress");
    groupRow = nullptr;
    for (auto& row : rows(allGroups, "groups").GetArray())
      if (str(row, "#Group") == group) groupRow = &row;
    return groupRow != nullptr;
  }, std::chrono::seconds(10)));
  if (groupRow) {
    CHECK(num(*groupRow, "#Count") == 1);
    CHECK(str(*groupRow, "#Type") == "PUSH");
    CHECK(str(*groupRow, "#Model") == "CLUSTERING");
    CHECK(num(*groupRow, "#Diff Total") == 0);
  }
  // topicList -c: the topic's line names the group consuming it; retry topics are left out.
  auto withGroups = adminJson(node, "topicList", {"-c"});
  bool consumedBy = false;
  for (auto& row : rows(withGroups, "topics").GetArray()) {
    CHECK(str(row, "#Topic").rfind("%RETRY%", 0) != 0);
    consumedBy |= str(row, "#Topic") == topic && str(row, "#Consumer Group") == group &&
                  str(row, "#Cluster Name") == "DefaultCluster";
  }
  CHECK(consumedBy);

  auto conn = adminJson(node, "consumerConnection", {"-g", group});
  auto& conns = rows(conn, "connections");
  REQUIRE(conns.Size() == 1);
  CHECK(str(conns[0], "#ClientId") == consumer.clientId());
  CHECK(str(conns[0], "#Language") == "CPP");
  bool subscribed = false;
  for (auto& s : rows(conn, "subscriptions").GetArray()) subscribed |= str(s, "#Topic") == topic && str(s, "#SubExpression") == "*";
  CHECK(subscribed);
  CHECK(std::string(conn["consumer"]["MessageModel"].GetString()) == "CLUSTERING");

  // A producer that stays up (registered by its heartbeat) shows in producerConnection.
  client::ProducerOptions po;
  po.group = uniqueName("AdminPG");
  po.client = node.clientConfig();
  client::Producer producer(po);
  REQUIRE(producer.start());
  REQUIRE(producer.send(client::makeMessage(topic, "TagA", "", "one more")));
  REQUIRE(eventually([&] { consumer.persistOffsetsNow(); return consumed.load() >= 11; }, std::chrono::seconds(10)));
  rapidjson::Document pc;
  REQUIRE(eventually([&] {
    auto r = admin(node, "producerConnection", {"-g", po.group, "-t", topic, "--json"});
    if (r.exitCode != 0) return false;
    pc.Parse(r.out.c_str());
    return pc.IsObject() && pc.HasMember("connections") && pc["connections"].Size() == 1;
  }, std::chrono::seconds(10)));
  CHECK(str(pc["connections"][0], "#ClientId") == producer.instance().clientId());

  // Reset to the beginning: the online consumer is told to follow and gets all 11 again.
  int before = consumed.load();
  auto reset = adminJson(node, "resetOffsetByTime", {"-g", group, "-t", topic, "-s", "0"});
  auto& offsets = rows(reset, "offsets");
  CHECK(offsets.Size() == 2);
  for (auto& row : offsets.GetArray()) CHECK(num(row, "#offset") == 0);
  CHECK(eventually([&] { return consumed.load() >= before + 11; }, std::chrono::seconds(20)));
  producer.shutdown();
  consumer.shutdown();

  auto del = admin(node, "deleteSubGroup", {"-b", node.brokerAddr, "-g", group});
  REQUIRE_MESSAGE(del.exitCode == 0, (describe(del)));
  CHECK(del.out.find("delete subscription group [" + group + "] from broker [" + node.brokerAddr + "] success.") !=
        std::string::npos);
}

TEST_CASE("rmqadmin message verbs: sendMessage, queryMsgById/ByKey/ByOffset, consumeMessage, printMsg") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("AdminMsgTopic");
  REQUIRE(node.createTopic(topic, 2));

  auto sent = adminJson(node, "sendMessage", {"-t", topic, "-p", "hello tools", "-k", "order-42", "-c", "TagX"});
  auto& row = rows(sent, "result")[0];
  CHECK(str(row, "#Send Result") == "SEND_OK");
  std::string uniq = str(row, "#MsgId"), offsetId = str(row, "#OffsetMsgId");
  int64_t qid = num(row, "#QID"), qoff = num(row, "#Queue Offset");
  CHECK(uniq.size() == 32);
  CHECK(offsetId.size() == 32);

  // The unique-key and key queries read the index, which the dispatch builds just after the send
  // returned: wait until the key is found (exit 1 "no message" until then).
  CHECK(eventually([&] { return admin(node, "queryMsgByKey", {"-t", topic, "-k", "order-42"}).exitCode == 0; },
                   std::chrono::seconds(10)));
  auto byId = adminJson(node, "queryMsgById", {"-i", offsetId});
  CHECK(std::string(byId["message"]["Message Body"].GetString()) == "hello tools");
  CHECK(std::string(byId["message"]["Topic"].GetString()) == topic);
  CHECK(std::string(byId["message"]["Tags"].GetString()) == "[TagX]");
  CHECK(std::string(byId["message"]["Message ID"].GetString()) == uniq);
  auto byUniq = adminJson(node, "queryMsgById", {"-i", uniq, "-t", topic});
  CHECK(std::string(byUniq["message"]["OffsetID"].GetString()) == offsetId);

  auto byKey = adminJson(node, "queryMsgByKey", {"-t", topic, "-k", "order-42"});
  auto& found = rows(byKey, "messages");
  REQUIRE(found.Size() == 1);
  CHECK(str(found[0], "#Message ID") == uniq);
  CHECK(num(found[0], "#QID") == qid);
  CHECK(num(found[0], "#Offset") == qoff);
  auto none = admin(node, "queryMsgByKey", {"-t", topic, "-k", "no-such-key"});
  CHECK(none.exitCode == 1);  // like mqadmin: "query message by key finished, but no message."
  CHECK(none.err.find("no message") != std::string::npos);

  auto byOffset = adminJson(node, "queryMsgByOffset",
                            {"-t", topic, "-b", "broker-a", "-i", std::to_string(qid), "-o", std::to_string(qoff)});
  CHECK(std::string(byOffset["message"]["OffsetID"].GetString()) == offsetId);

  sendSome(node, topic, 4, uniqueName("PG"), "TagY");
  // The consume queues are written by the store's dispatch shortly after the sends returned; the
  // verb commits no offsets, so asking again is harmless.
  rapidjson::Document consumed;
  CHECK(eventually([&] {
    consumed = adminJson(node, "consumeMessage", {"-t", topic});
    return rows(consumed, "messages").Size() == 5;
  }, std::chrono::seconds(10)));
  for (auto& row : rows(consumed, "messages").GetArray()) CHECK(str(row, "#Broker Name") == "broker-a");
  auto print = adminJson(node, "printMsg", {"-t", topic, "-s", "TagX"});
  auto& printed = rows(print, "messages");
  REQUIRE(printed.Size() == 1);
  CHECK(str(printed[0], "#BODY") == "hello tools");
  auto printText = admin(node, "printMsg", {"-t", topic});
  CHECK(printText.out.rfind("#MSGID", 0) == 0);
  CHECK(printText.out.find("body-3") != std::string::npos);
}

TEST_CASE("rmqadmin usage: help, unknown verbs and options, missing options, unreachable name server") {
  auto help = runTool(RMQADMIN_BIN, {"help", "updateTopic"});
  CHECK(help.exitCode == 0);
  CHECK(help.out.find("-t, --topic <topic>") != std::string::npos);
  auto list = runTool(RMQADMIN_BIN, {});
  CHECK(list.exitCode == 2);
  CHECK(list.err.find("updateTopic") != std::string::npos);
  CHECK(runTool(RMQADMIN_BIN, {"noSuchVerb"}).exitCode == 2);
  auto unknownOpt = runTool(RMQADMIN_BIN, {"topicList", "--bogus"});
  CHECK(unknownOpt.exitCode == 2);
  CHECK(unknownOpt.err.find("unknown option --bogus") != std::string::npos);
  auto missing = runTool(RMQADMIN_BIN, {"topicRoute", "-n", "127.0.0.1:1"});
  CHECK(missing.exitCode == 2);
  CHECK(missing.err.find("missing option -t") != std::string::npos);
  auto down = runTool(RMQADMIN_BIN, {"topicList", "-n", "127.0.0.1:" + std::to_string(freePort()), "--json"});
  CHECK(down.exitCode == 1);
  CHECK(down.out.find("\"error\"") != std::string::npos);
}
