// Name server over real sockets: registration of masters/slaves of two clusters, routes in both
// JSON forms, cluster info, topic lists, write permission, data version, unregister, expiry.
#include <doctest/doctest.h>
#include <zlib.h>

#include "common/bytes.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "namesrv_client.h"
#include "node_process.h"

using namespace rmq;
using namespace rmq::test;
namespace RC = rmq::RequestCode;

namespace {

std::string routeBody(TestClient& c, const std::string& addr, const std::string& topic, int version,
                      bool standardOnly = false) {
  auto r = standardOnly ? c.call(addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}, {"acceptStandardJsonOnly", "true"}},
                                 {}, version)
                        : c.call(addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", topic}}, {}, version);
  return r && r->code == 0 ? r->body : "";
}

}  // namespace

TEST_CASE("namesrv: masters and slaves of two clusters, routes, cluster info, topic lists") {
  Namesrv ns;
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient c;

  auto a0 = c.call(ns.addr, registerRequest("c1", "broker-a", 0, "127.0.0.1:30911", registerBody(1, {"TopicA:4", "OnlyA:2"})));
  REQUIRE(codeOf(a0) == 0);
  CHECK_FALSE(a0->extFields.contains("masterAddr"));
  auto a1 = c.call(ns.addr, registerRequest("c1", "broker-a", 1, "127.0.0.1:31911", registerBody(1, {"TopicA:4"})));
  REQUIRE(codeOf(a1) == 0);
  CHECK(a1->extFields.get("masterAddr") == "127.0.0.1:30911");
  CHECK(a1->extFields.get("haServerAddr") == "127.0.0.1:30911-ha");
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c2", "broker-b", 0, "127.0.0.1:32911",
                                                 registerBody(1, {"TopicA:8", "OnlyB:1:6:2"})))) == 0);

  SUBCASE("route in fastjson form (old clients) and standard JSON (>= 4.9.4 or acceptStandardJsonOnly)") {
    auto old = routeBody(c, ns.addr, "TopicA", 317);
    CHECK(old.find("{0:\"127.0.0.1:30911\",1:\"127.0.0.1:31911\"}") != std::string::npos);
    auto standard = routeBody(c, ns.addr, "TopicA", 407);
    CHECK(standard.find("{\"0\":\"127.0.0.1:30911\",\"1\":\"127.0.0.1:31911\"}") != std::string::npos);
    CHECK(routeBody(c, ns.addr, "TopicA", 317, true) == standard);
    auto doc = parseJson(standard);
    REQUIRE(doc.IsObject());
    REQUIRE(doc["queueDatas"].Size() == 2);
    REQUIRE(doc["brokerDatas"].Size() == 2);
    CHECK(doc["filterServerTable"].IsObject());
    for (auto& q : doc["queueDatas"].GetArray()) {
      std::string name = q["brokerName"].GetString();
      CHECK(q["writeQueueNums"].GetInt() == (name == "broker-a" ? 4 : 8));
      CHECK(q["perm"].GetInt() == 6);
    }
    for (auto& b : doc["brokerDatas"].GetArray()) {
      std::string name = b["brokerName"].GetString();
      CHECK(std::string(b["cluster"].GetString()) == (name == "broker-a" ? "c1" : "c2"));
    }
  }

  SUBCASE("unknown topic is TOPIC_NOT_EXIST") {
    auto r = c.call(ns.addr, RC::GET_ROUTEINFO_BY_TOPIC, {{"topic", "NoSuchTopic"}});
    CHECK(codeOf(r) == ResponseCode::TOPIC_NOT_EXIST);
    CHECK(r->remark.value_or("").find("NoSuchTopic") != std::string::npos);
  }

  SUBCASE("cluster info and topic lists") {
    auto info = c.call(ns.addr, RC::GET_BROKER_CLUSTER_INFO);
    REQUIRE(codeOf(info) == 0);
    CHECK(info->body.find("\"brokerAddrs\":{0:\"127.0.0.1:30911\",1:\"127.0.0.1:31911\"}") != std::string::npos);
    auto doc = parseJson(info->body);
    REQUIRE(doc.IsObject());
    CHECK(std::string(doc["clusterAddrTable"]["c1"][0].GetString()) == "broker-a");
    CHECK(std::string(doc["clusterAddrTable"]["c2"][0].GetString()) == "broker-b");
    CHECK(std::string(doc["brokerAddrTable"]["broker-b"]["brokerAddrs"]["0"].GetString()) == "127.0.0.1:32911");

    auto all = parseJson(c.call(ns.addr, RC::GET_ALL_TOPIC_LIST_FROM_NAMESERVER)->body);
    CHECK(all["topicList"].Size() == 3);
    auto byCluster = parseJson(c.call(ns.addr, RC::GET_TOPICS_BY_CLUSTER, {{"cluster", "c2"}})->body);
    REQUIRE(byCluster["topicList"].Size() == 2);
    auto sys = parseJson(c.call(ns.addr, RC::GET_SYSTEM_TOPIC_LIST_FROM_NS)->body);
    CHECK(sys["topicList"].Size() == 4);  // c1 broker-a c2 broker-b
    CHECK(sys.HasMember("brokerAddr"));
    auto unitSub = parseJson(c.call(ns.addr, RC::GET_HAS_UNIT_SUB_TOPIC_LIST)->body);
    REQUIRE(unitSub["topicList"].Size() == 1);
    CHECK(std::string(unitSub["topicList"][0].GetString()) == "OnlyB");
    CHECK(parseJson(c.call(ns.addr, RC::GET_UNIT_TOPIC_LIST)->body)["topicList"].Size() == 0);
    CHECK(parseJson(c.call(ns.addr, RC::GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST)->body)["topicList"].Size() == 1);
  }

  SUBCASE("wipe and add write permission") {
    auto wipe = c.call(ns.addr, RC::WIPE_WRITE_PERM_OF_BROKER, {{"brokerName", "broker-a"}});
    REQUIRE(codeOf(wipe) == 0);
    CHECK(wipe->extFields.get("wipeTopicCount") == "2");
    CHECK(routeBody(c, ns.addr, "OnlyA", 407).find("\"perm\":4") != std::string::npos);
    auto add = c.call(ns.addr, RC::ADD_WRITE_PERM_OF_BROKER, {{"brokerName", "broker-a"}});
    CHECK(add->extFields.get("addTopicCount") == "2");
    CHECK(routeBody(c, ns.addr, "OnlyA", 407).find("\"perm\":6") != std::string::npos);
  }

  SUBCASE("query data version") {
    Fields who{{"brokerName", "broker-a"}, {"brokerAddr", "127.0.0.1:30911"}, {"clusterName", "c1"}, {"brokerId", "0"}};
    auto same = c.call(ns.addr, RC::QUERY_DATA_VERSION, who, "{\"counter\":1,\"timestamp\":1700000000000}");
    REQUIRE(codeOf(same) == 0);
    CHECK(same->extFields.get("changed") == "false");
    CHECK(same->body == "{\"counter\":1,\"timestamp\":1700000000000}");
    auto newer = c.call(ns.addr, RC::QUERY_DATA_VERSION, who, "{\"counter\":2,\"timestamp\":1700000000000}");
    CHECK(newer->extFields.get("changed") == "true");
  }

  SUBCASE("delete topic, unregister") {
    REQUIRE(codeOf(c.call(ns.addr, RC::DELETE_TOPIC_IN_NAMESRV, {{"topic", "OnlyB"}, {"clusterName", "c1"}})) == 0);
    CHECK(!routeBody(c, ns.addr, "OnlyB", 407).empty());  // not on c1
    REQUIRE(codeOf(c.call(ns.addr, RC::DELETE_TOPIC_IN_NAMESRV, {{"topic", "OnlyB"}})) == 0);
    CHECK(routeBody(c, ns.addr, "OnlyB", 407).empty());

    Fields b{{"brokerName", "broker-b"}, {"brokerAddr", "127.0.0.1:32911"}, {"clusterName", "c2"}, {"brokerId", "0"}};
    REQUIRE(codeOf(c.call(ns.addr, RC::UNREGISTER_BROKER, b)) == 0);
    auto doc = parseJson(routeBody(c, ns.addr, "TopicA", 407));
    REQUIRE(doc.IsObject());
    CHECK(doc["queueDatas"].Size() == 1);
    CHECK(parseJson(c.call(ns.addr, RC::GET_BROKER_CLUSTER_INFO)->body)["clusterAddrTable"].HasMember("c2") == false);
  }

  SUBCASE("compressed registration, crc32 check, bad body") {
    std::string raw;
    auto block = [&](std::string_view s) { putBE32(raw, static_cast<uint32_t>(s.size())); raw.append(s); };
    block("{\"counter\":3,\"timestamp\":5}");
    putBE32(raw, 1);
    block("Zipped 3 3 6 SINGLE_TAG");
    block("[]");
    uLongf size = compressBound(raw.size());
    std::string z(size, '\0');
    compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()), raw.size(), 9);
    z.resize(size);
    auto req = registerRequest("c3", "broker-z", 0, "127.0.0.1:33911", z);
    req.extFields.setBool("compressed", true);
    REQUIRE(codeOf(c.call(ns.addr, req)) == 0);
    CHECK(routeBody(c, ns.addr, "Zipped", 407).find("\"writeQueueNums\":3") != std::string::npos);

    auto badCrc = registerRequest("c3", "broker-y", 0, "127.0.0.1:34911", registerBody(1, {"Y:1"}));
    badCrc.extFields.set("bodyCrc32", "12345");
    auto r = c.call(ns.addr, badCrc);
    CHECK(codeOf(r) == ResponseCode::SYSTEM_ERROR);
    CHECK(r->remark.value_or("") == "crc32 not match");
    CHECK(routeBody(c, ns.addr, "Y", 407).empty());

    auto garbage = registerRequest("c3", "broker-x", 0, "127.0.0.1:35911", "{not json");
    CHECK(codeOf(c.call(ns.addr, garbage)) == ResponseCode::SYSTEM_ERROR);
    auto missing = c.call(ns.addr, RC::REGISTER_BROKER, {{"brokerName", "x"}});
    CHECK(codeOf(missing) == ResponseCode::SYSTEM_ERROR);
    CHECK(missing->remark.value_or("").find("brokerAddr") != std::string::npos);
  }
  CHECK(ns.node.stop() == 0);
}

TEST_CASE("namesrv: brokers expire without registration, and at once when their connection closes") {
  // 2 s: the route check right after the registration must come before the expiry, also when
  // the test thread is descheduled for a while on loaded CI cores.
  Namesrv ns("brokerExpiredMillis = 2000\nscanNotActiveBrokerInterval = 100\n");
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient c;
  REQUIRE(codeOf(c.call(ns.addr, registerRequest("c1", "broker-a", 0, "127.0.0.1:30911", registerBody(1, {"Exp:1"})))) == 0);
  CHECK(!routeBody(c, ns.addr, "Exp", 407).empty());
  CHECK(eventually([&] { return routeBody(c, ns.addr, "Exp", 407).empty(); }, std::chrono::seconds(10)));
  // Routes go first, the log line right after.
  CHECK(eventually([&] { return ns.node.log("namesrv.log").find("expired") != std::string::npos; },
                   std::chrono::seconds(5)));
  ns.node.stop();
}

TEST_CASE("namesrv: connection close removes the brokers registered over it") {
  Namesrv ns;  // default 120 s expiry: only the close can remove the broker
  REQUIRE_MESSAGE(ns.node.start(), ns.node.stderrText());
  TestClient observer;
  {
    TestClient broker;
    REQUIRE(codeOf(broker.call(ns.addr, registerRequest("c1", "broker-a", 0, "127.0.0.1:30911",
                                                       registerBody(1, {"Closing:1"})))) == 0);
    REQUIRE(codeOf(observer.call(ns.addr, registerRequest("c1", "broker-b", 0, "127.0.0.1:30912",
                                                         registerBody(1, {"Closing:1"})))) == 0);
    CHECK(parseJson(routeBody(observer, ns.addr, "Closing", 407))["queueDatas"].Size() == 2);
  }  // broker's connection closes here
  CHECK(eventually([&] {
    auto doc = parseJson(routeBody(observer, ns.addr, "Closing", 407));
    return doc.IsObject() && doc["queueDatas"].Size() == 1;
  }, std::chrono::seconds(5)));
  CHECK(eventually([&] { return ns.node.log("namesrv.log").find("connection") != std::string::npos; },
                   std::chrono::seconds(5)));
  ns.node.stop();
}
