// rmqadmin verbs answered by a live consumer of our client library, through a real rmqnode (and the
// broker's 223 -> client 221 status call):
// consumerStatus (GET_CONSUMER_RUNNING_INFO), queryMsgById / queryMsgByUniqueKey -g -d
// (CONSUME_MESSAGE_DIRECTLY: the broker pushes the stored message to the consumer's listener and
// relays its ConsumeMessageDirectlyResult).
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>

#include "client/consumer/pull_consumer.h"
#include "client/consumer/push_consumer.h"
#include "broker_calls.h"
#include "client_fixture.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "common/wall_clock.h"
#include "test_client.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::client;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

struct Counter {
  std::mutex mu;
  std::map<std::string, int> byBody;
  std::atomic<bool> answerLater{false};
  std::atomic<bool> answerThrow{false};
  int of(const std::string& body) { std::lock_guard lk(mu); return byBody[body]; }
  int total() {
    std::lock_guard lk(mu);
    int n = 0;
    for (auto& [_, c] : byBody) n += c;
    return n;
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("rmqadmin consumer verbs: consumerStatus and pushing a message to a live consumer") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("DirectTopic");
  REQUIRE(node.createTopic(topic, 2));
  auto producer = startProducer(producerOptions(node));
  auto sent = sendBodies(*producer, topic, "direct-", 3);

  Counter counter;
  PushConsumerOptions o = pushOptions(node);
  o.consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  o.consumeThreadMin = o.consumeThreadMax = 2;
  PushConsumer consumer(o);
  REQUIRE(consumer.subscribe(topic, "*").ok());
  consumer.registerListener([&](const std::vector<MessageExt>& msgs, const MessageQueue&) {
    std::lock_guard lk(counter.mu);
    for (auto& m : msgs) counter.byBody[m.body]++;
    if (counter.answerThrow) throw std::runtime_error("listener refused " + msgs.front().body);
    return counter.answerLater ? ConsumeStatus::RECONSUME_LATER : ConsumeStatus::CONSUME_SUCCESS;
  });
  const int64_t startedAt = nowMillis();
  REQUIRE(consumer.start().ok());
  REQUIRE(eventually([&] { return counter.total() == 3; }, std::chrono::seconds(30)));
  const std::string group = o.group;
  const std::string clientId = consumer.clientId();

  SUBCASE("consumerStatus lists the group's consumers and one consumer's running info") {
    auto all = adminJson(node, "consumerStatus", {"-g", group});
    auto& clients = rows(all, "clients");
    REQUIRE(clients.Size() == 1);
    CHECK(str(clients[0], "#ClientId") == clientId);
    CHECK(str(clients[0], "#Subscriptions") == "%RETRY%" + group + "@*," + topic + "@*");
    CHECK(contains(admin(node, "consumerStatus", {"-g", group}).out, "Same subscription in the same group of consumer"));

    auto one = adminJson(node, "consumerStatus", {"-g", group, "-i", clientId});
    REQUIRE(one.HasMember("properties"));
    CHECK(std::string(one["properties"]["PROP_CONSUME_TYPE"].GetString()) == "CONSUME_PASSIVELY");
    CHECK(std::string(one["properties"]["messageModel"].GetString()) == "CLUSTERING");
    auto& subs = rows(one, "subscriptions");
    REQUIRE(subs.Size() >= 1);  // the topic and the group's %RETRY% topic
    bool subscribed = false;
    for (auto& s : subs.GetArray()) subscribed |= str(s, "#Topic") == topic && str(s, "#SubExpression") == "*";
    CHECK(subscribed);
    int topicQueues = 0;
    for (auto& q : rows(one, "offsets").GetArray()) topicQueues += str(q, "#Topic") == topic;
    CHECK(topicQueues == 2);
    // Java's ProcessQueueInfo, every field (ProcessQueue.fillProcessQueueInfo), as the consumer
    // answered it through the broker, and its toString() under "#Consumer MQ Detail#".
    TestClient raw;
    rapidjson::Document doc;
    auto topicQueue = [&](const rapidjson::Value& name) {
      return std::string(name.GetString()).find("\"topic\":\"" + topic + "\"") != std::string::npos;
    };
    // The listener counts a message just before the consumer drops it from its process queue.
    REQUIRE(eventually([&] {
      auto info = invoke(raw, node.brokerAddr, request(RequestCode::GET_CONSUMER_RUNNING_INFO,
                                                       {{"consumerGroup", group}, {"clientId", clientId}}));
      if (info.code != 0) return false;
      doc = parseBody(info);
      for (auto& m : doc["mqTable"].GetObject())
        if (topicQueue(m.name) && m.value["cachedMsgCount"].GetInt64() != 0) return false;
      return true;
    }, std::chrono::seconds(10)));
    int detailed = 0;
    for (auto& m : doc["mqTable"].GetObject()) {
      if (!topicQueue(m.name)) continue;
      ++detailed;
      auto& pq = m.value;
      for (const char* key : {"cachedMsgMinOffset", "cachedMsgMaxOffset", "cachedMsgSizeInMiB", "transactionMsgMinOffset",
                              "transactionMsgMaxOffset", "tryUnlockTimes"}) {
        CHECK_MESSAGE(pq.HasMember(key), key);
      }
      CHECK(pq["transactionMsgCount"].GetInt64() == 0);  // concurrent consumer: never an orderly batch
      // Set when the queue was taken, then by each consumed batch.
      CHECK(pq["lastConsumeTimestamp"].GetInt64() >= startedAt);
      CHECK(pq["lastConsumeTimestamp"].GetInt64() <= nowMillis());
    }
    CHECK(detailed == 2);
    int detailRows = 0;
    for (auto& d : rows(one, "details").GetArray()) {
      if (str(d, "#Topic") != topic) continue;
      ++detailRows;
      std::string text = str(d, "#ProcessQueueInfo");
      CHECK_MESSAGE(text.rfind("ProcessQueueInfo [commitOffset=", 0) == 0, text);
      CHECK_MESSAGE(contains(text, ", cachedMsgSizeInMiB=0, transactionMsgMinOffset=0, "), text);
      auto at = text.find("lastConsumeTimestamp=");
      REQUIRE(at != std::string::npos);
      CHECK_MESSAGE(text.size() - at == std::string("lastConsumeTimestamp=").size() + 17 + 1, text);  // yyyyMMddHHmmssSSS]
    }
    CHECK(detailRows == 2);
    // RT/TPS from the consumer's counters (Java's ConsumeStatus per topic): 3 pulled and consumed.
    bool counted = false;
    for (auto& st : rows(one, "status").GetArray()) {
      if (str(st, "#Topic") != topic) continue;
      counted = true;
      CHECK(std::stod(str(st, "#Pull TPS")) > 0);
      CHECK(std::stod(str(st, "#ConsumeOK TPS")) > 0);
      CHECK(std::stod(str(st, "#Pull RT")) >= 0);
      CHECK(std::stod(str(st, "#ConsumeFailed TPS")) == 0);
    }
    CHECK_MESSAGE(counted, json::toString(one));
    auto text = admin(node, "consumerStatus", {"-g", group, "-i", clientId});
    CHECK(contains(text.out, "#Consumer Properties#"));
    CHECK(contains(text.out, "#Consumer Offset#"));

    auto offline = admin(node, "consumerStatus", {"-g", group, "-i", "10.0.0.1@nobody"});
    CHECK(offline.exitCode == 1);
    CHECK(contains(offline.err, "not online"));
  }

  SUBCASE("queryMsgById -g -d hands the message to the consumer's listener and prints its result") {
    auto pushed = admin(node, "queryMsgById", {"-i", sent[0].offsetMsgId, "-g", group, "-d", clientId});
    REQUIRE_MESSAGE(pushed.exitCode == 0, (describe(pushed)));
    CHECK(contains(pushed.out, "ConsumeMessageDirectlyResult [order=false, autoCommit=true, consumeResult=CR_SUCCESS, "
                               "remark=null, spentTimeMills="));
    CHECK(counter.of("direct-0") == 2);  // once pulled, once pushed

    counter.answerLater = true;  // the listener's RECONSUME_LATER comes back as CR_LATER
    auto later = adminJson(node, "queryMsgByUniqueKey", {"-t", topic, "-i", sent[1].msgId, "-g", group, "-d", clientId});
    counter.answerLater = false;
    REQUIRE(later.HasMember("result"));
    CHECK(std::string(later["result"]["consumeResult"].GetString()) == "CR_LATER");
    CHECK(later["result"]["order"].GetBool() == false);
    CHECK(counter.of("direct-1") == 2);

    counter.answerThrow = true;  // a throwing listener: CR_THROW_EXCEPTION, the exception text as remark
    auto thrown = adminJson(node, "queryMsgById", {"-i", sent[0].offsetMsgId, "-g", group, "-d", clientId});
    counter.answerThrow = false;
    CHECK(std::string(thrown["result"]["consumeResult"].GetString()) == "CR_THROW_EXCEPTION");
    CHECK(std::string(thrown["result"]["remark"].GetString()) == "listener refused direct-0");
    CHECK(counter.of("direct-0") == 3);

    auto wrongClient = admin(node, "queryMsgById", {"-i", sent[2].offsetMsgId, "-g", group, "-d", "10.0.0.1@nobody"});
    CHECK(wrongClient.exitCode == 1);
    CHECK(contains(wrongClient.err, "not online"));
    auto wrongGroup = admin(node, "queryMsgById", {"-i", sent[2].offsetMsgId, "-g", "NoSuchGroup", "-d", clientId});
    CHECK(wrongGroup.exitCode == 1);
    CHECK(counter.of("direct-2") == 1);  // neither reached the listener
    auto half = admin(node, "queryMsgById", {"-i", sent[2].offsetMsgId, "-g", group});
    CHECK(half.exitCode == 2);
  }

  SUBCASE("an orderly consumer's listener answers a pushed message with order=true") {
    PushConsumerOptions oo = pushOptions(node);
    oo.consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
    oo.consumeThreadMin = oo.consumeThreadMax = 2;
    PushConsumer orderly(oo);
    REQUIRE(orderly.subscribe(topic, "*").ok());
    std::atomic<int> seen{0};
    orderly.registerListener(OrderlyListener([&](const std::vector<MessageExt>& msgs, const MessageQueue&) {
      seen += static_cast<int>(msgs.size());
      return ConsumeOrderlyStatus::SUCCESS;
    }));
    REQUIRE(orderly.start().ok());
    REQUIRE(eventually([&] { return seen.load() == 3; }, std::chrono::seconds(30)));
    auto pushed = adminJson(node, "queryMsgById", {"-i", sent[0].offsetMsgId, "-g", oo.group, "-d", orderly.clientId()});
    CHECK(std::string(pushed["result"]["consumeResult"].GetString()) == "CR_SUCCESS");
    CHECK(pushed["result"]["order"].GetBool() == true);
    CHECK(seen.load() == 4);
    orderly.shutdown();
  }

  SUBCASE("GET_CONSUMER_STATUS_FROM_CLIENT: the broker gathers the consumer's offsets of a topic (223)") {
    TestClient tc;
    int64_t sum = -1;
    size_t queues = 0;
    REQUIRE(eventually([&] {
      auto r = tc.call(node.brokerAddr, RequestCode::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                       {{"topic", topic}, {"group", group}});
      if (codeOf(r) != ResponseCode::SUCCESS) return false;
      auto doc = parseJson(bodyOf(*r));
      if (!doc.IsObject() || !doc.HasMember("consumerTable") || !doc["consumerTable"].HasMember(clientId.c_str())) return false;
      auto& table = doc["consumerTable"][clientId.c_str()];
      sum = 0;
      queues = table.MemberCount();
      for (auto& m : table.GetObject()) {
        auto mq = json::parseMessageQueueKey(json::keyView(m.name));
        if (!mq || mq->topic != topic) return false;
        sum += m.value.GetInt64();
      }
      return sum == 3;  // next offsets of the two queues after the three messages
    }, std::chrono::seconds(20)));
    CHECK(queues == 2);
    auto other = tc.call(node.brokerAddr, RequestCode::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                         {{"topic", topic}, {"group", "NoSuchGroup"}});
    CHECK(codeOf(other) == ResponseCode::SYSTEM_ERROR);  // nobody online in that group
  }

  SUBCASE("a pull consumer answers running info (CONSUME_ACTIVELY) and status, refuses a direct push") {
    PullConsumerOptions po = pullOptions(node);
    po.group = uniqueName("PullGroup");
    PullConsumer pull(po);
    REQUIRE(pull.start().ok());
    auto queues = pull.fetchSubscribeMessageQueues(topic);
    REQUIRE(queues.ok());
    REQUIRE(pull.updateConsumeOffset((*queues)[0], 1).ok());
    // The broker knows the client once its heartbeat (with the route's broker) arrived.
    REQUIRE(eventually([&] { return admin(node, "consumerStatus", {"-g", po.group, "-i", pull.clientId()}).exitCode == 0; },
                       std::chrono::seconds(60)));
    auto info = adminJson(node, "consumerStatus", {"-g", po.group, "-i", pull.clientId()});
    CHECK(std::string(info["properties"]["PROP_CONSUME_TYPE"].GetString()) == "CONSUME_ACTIVELY");
    CHECK(std::string(info["properties"]["consumerGroup"].GetString()) == po.group);
    CHECK(info["properties"].HasMember("PROP_NAMESERVER_ADDR"));

    TestClient tc;
    auto st = tc.call(node.brokerAddr, RequestCode::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                      {{"topic", topic}, {"group", po.group}});
    REQUIRE(codeOf(st) == ResponseCode::SUCCESS);
    auto doc = parseJson(bodyOf(*st));
    REQUIRE(doc["consumerTable"].HasMember(pull.clientId().c_str()));
    auto& table = doc["consumerTable"][pull.clientId().c_str()];
    REQUIRE(table.MemberCount() == 1);
    CHECK(table.MemberBegin()->value.GetInt64() == 1);  // the offset given to updateConsumeOffset

    auto pushed = admin(node, "queryMsgById", {"-i", sent[0].offsetMsgId, "-g", po.group, "-d", pull.clientId()});
    CHECK(pushed.exitCode == 1);  // rmqadmin (as mqadmin) sees CONSUME_ACTIVELY and does not push
    CHECK_MESSAGE(contains(pushed.err, "not push consumer"), (describe(pushed)));
    // The raw 309, forwarded by the broker, is refused by the pull consumer itself.
    auto direct = tc.call(node.brokerAddr, RequestCode::CONSUME_MESSAGE_DIRECTLY,
                          {{"consumerGroup", po.group}, {"clientId", pull.clientId()}, {"msgId", sent[0].offsetMsgId}});
    CHECK(codeOf(direct) == ResponseCode::SYSTEM_ERROR);
    REQUIRE(direct);
    CHECK_MESSAGE(contains(direct->remark.value_or(""), "pull consumer"), direct->remark.value_or(""));
    pull.shutdown();
  }

  SUBCASE("queryMsgByUniqueKey prints the message found by its UNIQ_KEY") {
    auto found = admin(node, "queryMsgByUniqueKey", {"-t", topic, "-i", sent[2].msgId});
    REQUIRE_MESSAGE(found.exitCode == 0, (describe(found)));
    CHECK(contains(found.out, "direct-2"));
    CHECK(contains(found.out, sent[2].offsetMsgId));
    auto missing = admin(node, "queryMsgByUniqueKey", {"-t", topic, "-i", "0A0000000000000000000000000000FF"});
    CHECK(missing.exitCode == 1);
  }
  consumer.shutdown();
  producer->shutdown();
}

TEST_CASE("rmqadmin printMsgByQueue and checkMsgSendRT against a live node") {
  DevNode node;
  REQUIRE(node.start());
  std::string topic = uniqueName("QueueVerbs");
  REQUIRE(node.createTopic(topic, 2));

  auto rt = adminJson(node, "checkMsgSendRT", {"-t", topic, "-a", "6", "-s", "64"});
  auto& sends = rows(rt, "sends");
  REQUIRE(sends.Size() == 6);
  for (rapidjson::SizeType i = 0; i < sends.Size(); ++i) {
    CHECK(str(sends[i], "#Broker Name") == "broker-a");
    CHECK(num(sends[i], "#QID") == static_cast<int64_t>(i % 2));  // send i goes to queue i % queues
    CHECK(str(sends[i], "#Send Result") == "true");
  }
  CHECK(contains(admin(node, "checkMsgSendRT", {"-t", topic, "-a", "2"}).out, "Avg RT: "));
  // 6 + 2 sends of 64 / 128 'a's: queue 0 got sends 0, 2, 4 and 0.
  auto byQueue = adminJson(node, "printMsgByQueue", {"-t", topic, "-a", "broker-a", "-i", "0", "-p", "true", "-d", "true",
                                                     "-f", "true"});
  auto& msgs = rows(byQueue, "messages");
  REQUIRE(msgs.Size() == 4);
  for (rapidjson::SizeType i = 0; i < msgs.Size(); ++i) CHECK(num(msgs[i], "#Offset") == static_cast<int64_t>(i));
  CHECK(str(msgs[0], "#BODY") == std::string(64, 'a'));
  CHECK(str(msgs[3], "#BODY") == std::string(128, 'a'));
  auto& tags = rows(byQueue, "tags");
  REQUIRE(tags.Size() == 1);
  CHECK(num(tags[0], "#Count") == 4);
  auto quiet = admin(node, "printMsgByQueue", {"-t", topic, "-a", "broker-a", "-i", "1", "-p", "true"});
  REQUIRE(quiet.exitCode == 0);
  CHECK(contains(quiet.out, "NOT PRINT BODY"));
  CHECK(contains(quiet.out, "Total: 4"));
  CHECK(admin(node, "printMsgByQueue", {"-t", topic, "-a", "broker-a"}).exitCode == 2);  // no -i
}
