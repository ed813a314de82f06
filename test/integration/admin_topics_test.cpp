// Topic / subscription group / broker-config admin codes over real sockets against
// `rmqnode --role=namesrv,master`, including persistence across a restart.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;

TEST_CASE("admin topics: create, validate, list, route, refuse system topics, delete") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;

  CHECK(invoke(c, addr, createTopicRequest("bad topic", 4)).code == ResponseCode::SYSTEM_ERROR);
  CHECK(invoke(c, addr, createTopicRequest("TBW102", 4)).code == ResponseCode::SYSTEM_ERROR);
  CHECK(invoke(c, addr, createTopicRequest("broker-a", 4)).code == ResponseCode::SYSTEM_ERROR);
  auto missing = invoke(c, addr, request(RequestCode::UPDATE_AND_CREATE_TOPIC, {{"topic", "T"}}));
  CHECK(missing.code == ResponseCode::SYSTEM_ERROR);
  CHECK(missing.remark.value_or("").find("readQueueNums") != std::string::npos);

  auto created = invoke(c, addr, createTopicRequest("AdminTopic", 3, 4));
  REQUIRE(created.code == 0);
  auto all = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(all["topicConfigTable"].HasMember("AdminTopic"));
  auto& t = all["topicConfigTable"]["AdminTopic"];
  CHECK(t["readQueueNums"].GetInt() == 3);
  CHECK(t["writeQueueNums"].GetInt() == 3);
  CHECK(t["perm"].GetInt() == 4);
  CHECK(std::string(t["topicFilterType"].GetString()) == "SINGLE_TAG");
  CHECK(all["dataVersion"]["counter"].GetInt64() >= 1);
  CHECK(all["topicConfigTable"].HasMember("SCHEDULE_TOPIC_XXXX"));

  // As Java's registerIncrementBrokerData: the create is answered after the broker registered
  // the new table, so the name server routes the topic as soon as the answer arrives (a console
  // or script that creates and then lists must not race the registration).
  for (int i = 0; i < 8; ++i) {
    std::string name = i == 0 ? std::string("AdminTopic") : "AdminTopic" + std::to_string(i);
    if (i > 0) REQUIRE(invoke(c, addr, createTopicRequest(name, 2)).code == 0);
    auto route = c.call(node.namesrvAddr, request(RequestCode::GET_ROUTEINFO_BY_TOPIC, {{"topic", name}}));
    REQUIRE(route.ok());
    CHECK_MESSAGE(route->code == 0, name);
  }

  auto sys = parseBody(invoke(c, addr, request(RequestCode::GET_SYSTEM_TOPIC_LIST_FROM_BROKER, {})));
  std::set<std::string> sysTopics;
  for (auto& v : sys["topicList"].GetArray()) sysTopics.insert(v.GetString());
  CHECK(sysTopics.count("SCHEDULE_TOPIC_XXXX"));
  CHECK(sysTopics.count("broker-a"));
  CHECK(sysTopics.count("DefaultCluster"));
  CHECK_FALSE(sysTopics.count("AdminTopic"));

  CHECK(invoke(c, addr, request(RequestCode::DELETE_TOPIC_IN_BROKER, {{"topic", "SCHEDULE_TOPIC_XXXX"}})).code ==
        ResponseCode::SYSTEM_ERROR);
  CHECK(invoke(c, addr, request(RequestCode::DELETE_TOPIC_IN_BROKER, {{"topic", "AdminTopic"}})).code == 0);
  auto after = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  CHECK_FALSE(after["topicConfigTable"].HasMember("AdminTopic"));
  CHECK(after["topicConfigTable"].HasMember("SCHEDULE_TOPIC_XXXX"));
}

TEST_CASE("admin groups: create/update, list with every field, delete with offsets") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  std::string groupJson =
      R"({"groupName":"cg_admin1","consumeEnable":false,"retryQueueNums":2,"retryMaxTimes":5,"brokerId":0,)"
      R"("whichBrokerWhenConsumeSlowly":1,"consumeBroadcastEnable":true,"consumeFromMinEnable":true,)"
      R"("notifyConsumerIdsChangedEnable":true})";
  CHECK(invoke(c, addr, request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {}, "{not json")).code ==
        ResponseCode::SYSTEM_ERROR);
  REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {}, groupJson)).code == 0);
  auto all = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, {})));
  REQUIRE(all["subscriptionGroupTable"].HasMember("cg_admin1"));
  auto& g = all["subscriptionGroupTable"]["cg_admin1"];
  CHECK(g["consumeEnable"].GetBool() == false);
  CHECK(g["retryQueueNums"].GetInt() == 2);
  CHECK(g["retryMaxTimes"].GetInt() == 5);
  CHECK(all["subscriptionGroupTable"].HasMember("TOOLS_CONSUMER"));

  auto commit = request(RequestCode::UPDATE_CONSUMER_OFFSET,
                        {{"consumerGroup", "cg_admin1"}, {"topic", "TBW102"}, {"queueId", "0"}, {"commitOffset", "7"}});
  REQUIRE(invoke(c, addr, commit).code == 0);
  auto offsets = invoke(c, addr, request(RequestCode::GET_ALL_CONSUMER_OFFSET, {}));
  CHECK(bodyOf(offsets).find("\"TBW102@cg_admin1\":{0:7}") != std::string::npos);

  CHECK(invoke(c, addr, request(RequestCode::DELETE_SUBSCRIPTIONGROUP, {})).code == ResponseCode::SYSTEM_ERROR);
  REQUIRE(invoke(c, addr, request(RequestCode::DELETE_SUBSCRIPTIONGROUP,
                                {{"groupName", "cg_admin1"}, {"removeOffset", "true"}})).code == 0);
  auto after = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, {})));
  CHECK_FALSE(after["subscriptionGroupTable"].HasMember("cg_admin1"));
  CHECK(bodyOf(invoke(c, addr, request(RequestCode::GET_ALL_CONSUMER_OFFSET, {}))).find("cg_admin1") == std::string::npos);
}

TEST_CASE("admin persistence: topics, groups and offsets survive a restart in Java's file shapes") {
  DevNode node;
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  {
    TestClient c;
    createTopic(c, addr, "PersistTopic", 2);
    REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {},
                                  R"({"groupName":"cg_persist","retryMaxTimes":3})")).code == 0);
    REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_CONSUMER_OFFSET,
                                  {{"consumerGroup", "cg_persist"}, {"topic", "PersistTopic"}, {"queueId", "1"},
                                   {"commitOffset", "42"}})).code == 0);
  }
  CHECK(node.proc.stop() == 0);
  std::string topicsJson = node.proc.readFile("store/config/topics.json");
  CHECK(topicsJson.find("\t\"topicConfigTable\":{") != std::string::npos);
  CHECK(topicsJson.find("\"PersistTopic\":{\n\t\t\t\"order\":false,") != std::string::npos);
  CHECK(node.proc.readFile("store/config/consumerOffset.json").find("\"PersistTopic@cg_persist\":{1:42}") !=
        std::string::npos);
  CHECK(node.proc.readFile("store/config/subscriptionGroup.json").find("\"cg_persist\":{") != std::string::npos);

  REQUIRE(node.restart());
  TestClient c;
  auto all = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(all["topicConfigTable"].HasMember("PersistTopic"));
  CHECK(all["topicConfigTable"]["PersistTopic"]["writeQueueNums"].GetInt() == 2);
  auto groups = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, {})));
  REQUIRE(groups["subscriptionGroupTable"].HasMember("cg_persist"));
  CHECK(groups["subscriptionGroupTable"]["cg_persist"]["retryMaxTimes"].GetInt() == 3);
  auto q = invoke(c, addr, request(RequestCode::QUERY_CONSUMER_OFFSET,
                                 {{"consumerGroup", "cg_persist"}, {"topic", "PersistTopic"}, {"queueId", "1"}}));
  CHECK(q.code == 0);
  CHECK(extInt(q, "offset") == 42);
}

TEST_CASE("admin broker config: GET renders properties with a version, UPDATE is validated and applied") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  auto got = invoke(c, addr, request(RequestCode::GET_BROKER_CONFIG, {}));
  REQUIRE(got.code == 0);
  CHECK(bodyOf(got).find("brokerName=broker-a\n") != std::string::npos);
  CHECK(bodyOf(got).find("defaultTopicQueueNums=8\n") != std::string::npos);
  CHECK(bodyOf(got).find("flushDiskType=ASYNC_FLUSH\n") != std::string::npos);
  CHECK(got.extFields.get("version").find("\"counter\":0") != std::string::npos);

  auto bad = invoke(c, addr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "defaultTopicQueueNums=5\nnoSuchKey=1\n"));
  CHECK(bad.code == ResponseCode::SYSTEM_ERROR);
  CHECK(bad.remark.value_or("").find("noSuchKey") != std::string::npos);
  CHECK(bodyOf(invoke(c, addr, request(RequestCode::GET_BROKER_CONFIG, {}))).find("defaultTopicQueueNums=8\n") !=
        std::string::npos);

  REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "defaultTopicQueueNums=5\n")).code == 0);
  auto again = invoke(c, addr, request(RequestCode::GET_BROKER_CONFIG, {}));
  CHECK(bodyOf(again).find("defaultTopicQueueNums=5\n") != std::string::npos);
  CHECK(again.extFields.get("version").find("\"counter\":1") != std::string::npos);
}

// mqadmin updateBrokerConfig -k brokerPermission -v 4 drains a broker's writes: as Java's
// AdminBrokerProcessor, the update bumps the topic table's data version and registers at once, so
// the name server's routes carry the new perm before the answer (the periodic registration here is
// a minute away, and a name server only takes queue data from a changed data version).
TEST_CASE("admin broker config: a brokerPermission update reaches the name server's routes at once") {
  DevNode node({.extraBroker = "registerNameServerPeriod = 60000\n"});
  REQUIRE_MESSAGE(node.start(), node.proc.stderrText());
  TestClient c;
  REQUIRE(invoke(c, node.brokerAddr, createTopicRequest("PermTopic", 2)).code == 0);
  auto routePerm = [&] {
    auto route = c.call(node.namesrvAddr, request(RequestCode::GET_ROUTEINFO_BY_TOPIC, {{"topic", "PermTopic"}}));
    if (!route.ok() || route->code != 0) return -1;
    auto doc = parseJson(route->body);
    return doc["queueDatas"][0]["perm"].GetInt();
  };
  REQUIRE(routePerm() == 6);
  auto before = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  const int64_t counter = before["dataVersion"]["counter"].GetInt64();

  REQUIRE(invoke(c, node.brokerAddr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "brokerPermission=4\n")).code == 0);
  CHECK(routePerm() == 4);  // read-only: producers route elsewhere
  auto after = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  CHECK(after["dataVersion"]["counter"].GetInt64() == counter + 1);

  REQUIRE(invoke(c, node.brokerAddr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "brokerPermission=6\n")).code == 0);
  CHECK(routePerm() == 6);
  // Other keys leave the topic table's version alone.
  REQUIRE(invoke(c, node.brokerAddr, request(RequestCode::UPDATE_BROKER_CONFIG, {}, "defaultTopicQueueNums=5\n")).code == 0);
  auto last = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  CHECK(last["dataVersion"]["counter"].GetInt64() == counter + 2);
}
