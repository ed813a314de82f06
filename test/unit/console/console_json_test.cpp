// The console's /api/ JSON shapes, built from admin-client values (no I/O), parsed back and checked.
#include <doctest/doctest.h>

#include "client/message_helpers.h"
#include "common/json.h"
#include "console/console_assets.h"
#include "console/console_json.h"

using namespace rmq;
using namespace rmq::console;

namespace {
rapidjson::Document parsed(const std::string& text) {
  rapidjson::Document doc;
  REQUIRE(json::parse(text, doc));
  return doc;
}
client::ClusterInfo twoBrokerCluster() {
  client::ClusterInfo info;
  info.clusterAddrTable["DefaultCluster"] = {"broker-b", "broker-a"};
  info.brokerAddrTable["broker-a"] = client::BrokerData{"DefaultCluster", "broker-a", {{0, "127.0.0.1:10911"}, {1, "127.0.0.1:10921"}}};
  info.brokerAddrTable["broker-b"] = client::BrokerData{"DefaultCluster", "broker-b", {{0, "127.0.0.1:11911"}}};
  return info;
}
}  // namespace

TEST_CASE("console cluster: brokers sorted by name then id, runtime values or the error") {
  auto views = brokerViews(twoBrokerCluster());
  REQUIRE(views.size() == 3);
  CHECK(views[0].brokerName == "broker-a");
  CHECK(views[0].brokerId == 0);
  CHECK(views[1].brokerId == 1);
  CHECK(views[2].brokerName == "broker-b");
  views[0].runtime = std::map<std::string, std::string>{{"brokerVersionDesc", "V4_9_7"}, {"putTps", "12.5 10.0 9.0"},
      {"getTransferedTps", "3.25 1 1"}, {"commitLogDiskRatio", "0.42"}, {"msgPutTotalTodayNow", "150"},
      {"msgPutTotalTodayMorning", "50"}, {"commitLogMaxOffset", "4096"}, {"timerPendingCount", "7"},
      {"timerDeliveredCount", "40"}, {"timerLagP99Ms", "12"}};
  views[1].runtime = std::map<std::string, std::string>{};
  views[2].error = "connect failed";
  auto doc = parsed(clusterJson(views));
  auto& cl = doc["clusters"];
  REQUIRE(cl.Size() == 1);
  CHECK(std::string(cl[0]["name"].GetString()) == "DefaultCluster");
  auto& b = cl[0]["brokers"];
  REQUIRE(b.Size() == 3);
  CHECK(std::string(b[0]["role"].GetString()) == "MASTER");
  CHECK(std::string(b[1]["role"].GetString()) == "SLAVE");
  CHECK(std::string(b[0]["version"].GetString()) == "V4_9_7");
  CHECK(b[0]["putTps"].GetDouble() == doctest::Approx(12.5));
  CHECK(b[0]["getTps"].GetDouble() == doctest::Approx(3.25));
  CHECK(b[0]["diskRatio"].GetDouble() == doctest::Approx(0.42));
  CHECK(b[0]["msgPutTotalToday"].GetInt64() == 100);
  CHECK(b[0]["commitLogMaxOffset"].GetInt64() == 4096);
  CHECK(b[0]["timerPending"].GetInt64() == 7);
  CHECK(b[0]["timerDelivered"].GetInt64() == 40);
  CHECK(b[0]["timerLagP99Ms"].GetInt64() == 12);
  CHECK(b[1]["timerPending"].GetInt64() == 0);
  CHECK(b[1]["putTps"].GetDouble() == 0);  // missing keys read as zero
  CHECK(std::string(b[2]["error"].GetString()) == "connect failed");
  CHECK_FALSE(b[2].HasMember("putTps"));
}

TEST_CASE("console topics: kinds, sorted list") {
  auto info = twoBrokerCluster();
  CHECK(topicKind("Orders", info) == "normal");
  CHECK(topicKind("%RETRY%g1", info) == "retry");
  CHECK(topicKind("%DLQ%g1", info) == "dlq");
  CHECK(topicKind("TBW102", info) == "system");
  CHECK(topicKind("RMQ_SYS_TRANS_HALF_TOPIC", info) == "system");
  CHECK(topicKind("DefaultCluster", info) == "system");
  CHECK(topicKind("broker-a", info) == "system");
  CHECK(topicKind("DefaultCluster_REPLY_TOPIC", info) == "system");
  auto doc = parsed(topicListJson({"b", "%RETRY%g", "a"}, info));
  REQUIRE(doc["topics"].Size() == 3);
  CHECK(std::string(doc["topics"][0]["name"].GetString()) == "%RETRY%g");
  CHECK(std::string(doc["topics"][1]["name"].GetString()) == "a");
  CHECK(std::string(doc["topics"][1]["kind"].GetString()) == "normal");
}

TEST_CASE("console topic detail: route, queue offsets, totals, tps null until sampled") {
  client::TopicRouteData route;
  route.queueDatas.push_back({"broker-a", 4, 4, 6, 0});
  route.brokerDatas.push_back(client::BrokerData{"DefaultCluster", "broker-a", {{0, "127.0.0.1:10911"}}});
  std::vector<client::TopicOffset> stats{{{"T", "broker-a", 0}, 2, 10, 1700000000000},
                                         {{"T", "broker-a", 1}, 0, 5, 0}};
  auto totals = topicTotals(stats);
  CHECK(totals.messages == 13);
  CHECK(totals.maxOffsetSum == 15);
  auto doc = parsed(topicDetailJson("T", route, stats, std::nullopt, {"g1"}));
  CHECK(doc["tps"].IsNull());
  CHECK(doc["messages"].GetInt64() == 13);
  CHECK(doc["route"]["queueDatas"][0]["writeQueueNums"].GetInt() == 4);
  CHECK(std::string(doc["route"]["brokerDatas"][0]["brokerAddrs"]["0"].GetString()) == "127.0.0.1:10911");
  CHECK(doc["queues"][0]["minOffset"].GetInt64() == 2);
  CHECK(doc["queues"][1]["maxOffset"].GetInt64() == 5);
  CHECK(std::string(doc["consumerGroups"][0].GetString()) == "g1");
  auto withTps = parsed(topicDetailJson("T", route, stats, 2.5, {}));
  CHECK(withTps["tps"].GetDouble() == doctest::Approx(2.5));
}

TEST_CASE("console rate: messages per second between samples, none when time or count goes back") {
  CHECK(ratePerSecond(100, 1000, 150, 3000).value() == doctest::Approx(25.0));
  CHECK(ratePerSecond(100, 1000, 100, 2000).value() == 0.0);
  CHECK_FALSE(ratePerSecond(100, 1000, 150, 1000).has_value());
  CHECK_FALSE(ratePerSecond(100, 1000, 50, 2000).has_value());
}

TEST_CASE("console groups: names from %RETRY% topics, lag per queue never negative") {
  CHECK(groupsOfTopics({"%RETRY%b", "T", "%DLQ%a", "%RETRY%a", "%RETRY%"}) == std::vector<std::string>{"a", "b"});
  client::ConsumerConnectionInfo conn;
  conn.connections.push_back({"10.0.0.1@1", "10.0.0.1:5555", "JAVA", 399});
  conn.subscriptions.push_back(client::SubscriptionData{"T", "TagA || TagB", "TAG", {}, {}, 0});
  conn.consumeType = "CONSUME_PASSIVELY";
  conn.messageModel = "CLUSTERING";
  client::ConsumeStats stats;
  stats.offsets.push_back({{"T", "broker-a", 0}, 10, 4, 1700000000000});
  stats.offsets.push_back({{"T", "broker-a", 1}, 3, 5, 0});  // consumer ahead after a truncation
  stats.consumeTps = 1.5;
  auto doc = parsed(groupDetailJson("g", conn, stats));
  CHECK(doc["online"].GetBool());
  CHECK(std::string(doc["members"][0]["clientId"].GetString()) == "10.0.0.1@1");
  CHECK(std::string(doc["subscriptions"][0]["expression"].GetString()) == "TagA || TagB");
  CHECK(doc["queues"][0]["lag"].GetInt64() == 6);
  CHECK(doc["queues"][1]["lag"].GetInt64() == 0);
  CHECK(doc["diff"].GetInt64() == stats.diffTotal());
  auto offline = parsed(groupDetailJson("g", std::nullopt, std::nullopt));
  CHECK_FALSE(offline["online"].GetBool());
  CHECK(offline["members"].Size() == 0);
  auto list = parsed(groupListJson({GroupSummary{"g", stats, 1, ""}, GroupSummary{"h", std::nullopt, 0, "not online"}}));
  CHECK(list["groups"][0]["members"].GetInt() == 1);
  CHECK(list["groups"][0]["diff"].GetInt64() == stats.diffTotal());
  CHECK(std::string(list["groups"][1]["error"].GetString()) == "not online");
}

TEST_CASE("console groups: a POP group's figures per queue and summed; none for a pulling group") {
  client::ConsumeStats stats;
  stats.offsets.push_back({{"T", "broker-a", 0}, 10, 4, 0, client::PopQueueFigures{10, 5, 2, 1}});
  stats.offsets.push_back({{"T", "broker-a", 1}, 8, 8, 0, client::PopQueueFigures{8, 0, 0, 3}});
  stats.offsets.push_back({{"T", "broker-b", 0}, 7, 7, 0, std::nullopt});  // a broker without the group's POP state
  auto doc = parsed(groupDetailJson("g", std::nullopt, stats));
  CHECK(doc["queues"][0]["pop"]["inFlight"].GetInt64() == 5);
  CHECK(doc["queues"][0]["pop"]["due"].GetInt64() == 2);
  CHECK(doc["queues"][0]["pop"]["pullOffset"].GetInt64() == 10);
  CHECK_FALSE(doc["queues"][2].HasMember("pop"));
  CHECK(doc["pop"]["inFlight"].GetInt64() == 5);
  CHECK(doc["pop"]["deadLettered"].GetInt64() == 4);
  auto list = parsed(groupListJson({GroupSummary{"g", stats, 0, ""}}));
  CHECK(list["groups"][0]["pop"]["due"].GetInt64() == 2);
  client::ConsumeStats pulling;
  pulling.offsets.push_back({{"T", "broker-a", 0}, 10, 4, 0});
  CHECK_FALSE(parsed(groupDetailJson("g", std::nullopt, pulling)).HasMember("pop"));
  CHECK_FALSE(parsed(groupListJson({GroupSummary{"h", pulling, 0, ""}}))["groups"][0].HasMember("pop"));
}

TEST_CASE("console producers: the connections of a producer group, each as a consumer member is written") {
  std::vector<client::ConnectionInfo> conns{{"10.0.0.1@1", "10.0.0.1:5555", "JAVA", 399},
                                            {"10.0.0.2@7", "10.0.0.2:6666", "CPP", 401}};
  auto doc = parsed(producerListJson("pg", "T", conns));
  CHECK(std::string(doc["group"].GetString()) == "pg");
  CHECK(std::string(doc["topic"].GetString()) == "T");
  CHECK(doc["online"].GetBool());
  REQUIRE(doc["connections"].Size() == 2);
  CHECK(std::string(doc["connections"][1]["clientId"].GetString()) == "10.0.0.2@7");
  CHECK(std::string(doc["connections"][1]["clientAddr"].GetString()) == "10.0.0.2:6666");
  CHECK(std::string(doc["connections"][1]["language"].GetString()) == "CPP");
  CHECK(doc["connections"][1]["version"].GetInt() == 401);
  // The same member shape as a consumer group's members.
  client::ConsumerConnectionInfo consumers;
  consumers.connections = conns;
  auto group = parsed(groupDetailJson("g", consumers, std::nullopt));
  for (rapidjson::SizeType i = 0; i < 2; ++i)
    for (const char* key : {"clientId", "clientAddr", "language"})
      CHECK(std::string(group["members"][i][key].GetString()) == doc["connections"][i][key].GetString());
  auto none = parsed(producerListJson("pg", "T", {}));
  CHECK_FALSE(none["online"].GetBool());
  CHECK(none["connections"].Size() == 0);
}

TEST_CASE("console messages: text body, binary body as hex only, properties, truncation") {
  MessageExt m;
  m.topic = "T";
  m.body = "héllo\nworld";
  client::setTags(m, "TagA");
  client::setKeys(m, "k1 k2");
  m.putProperty("UNIQ_KEY", "7F0000010000ABCD");
  m.queueId = 2;
  m.queueOffset = 7;
  auto doc = parsed(messageJson(m, "broker-a"));
  CHECK(std::string(doc["msgId"].GetString()) == "7F0000010000ABCD");
  CHECK(std::string(doc["bodyText"].GetString()) == "héllo\nworld");
  CHECK(std::string(doc["tags"].GetString()) == "TagA");
  CHECK(std::string(doc["keys"].GetString()) == "k1 k2");
  CHECK(std::string(doc["brokerName"].GetString()) == "broker-a");
  CHECK(std::string(doc["properties"]["TAGS"].GetString()) == "TagA");
  CHECK(doc["queueOffset"].GetInt64() == 7);
  CHECK(doc["bodyTruncated"].GetBool() == false);

  m.body = std::string("\x00\x01\xff", 3);
  auto bin = parsed(messageJson(m));
  CHECK(bin["bodyText"].IsNull());
  CHECK(std::string(bin["bodyHex"].GetString()) == "0001ff");
  CHECK(bin["bodySize"].GetInt() == 3);

  m.body = "ab\xc3\xa9";  // "abé": a cut after 3 bytes splits the é
  auto cut = parsed(messageJson(m, {}, 3));
  CHECK(cut["bodyTruncated"].GetBool());
  CHECK(std::string(cut["bodyText"].GetString()) == "ab");
  CHECK(std::string(cut["bodyHex"].GetString()) == "6162c3");
}

TEST_CASE("console printable UTF-8 check") {
  CHECK(isPrintableUtf8("plain text\t"));
  CHECK(isPrintableUtf8("日本語"));
  CHECK_FALSE(isPrintableUtf8(std::string("a\0b", 3)));
  CHECK_FALSE(isPrintableUtf8("\xe6\x97"));  // cut sequence
  CHECK_FALSE(isPrintableUtf8("\xc0\x80"));  // overlong
  CHECK_FALSE(isPrintableUtf8("\x80"));
  CHECK(hexOf("\x01\xab") == "01ab");
}

TEST_CASE("console send result, reset offsets and error shapes") {
  client::SendResult r;
  r.msgId = "U1";
  r.offsetMsgId = "O1";
  r.queue = {"T", "broker-a", 3};
  r.queueOffset = 42;
  auto doc = parsed(sendResultJson(r));
  CHECK(std::string(doc["status"].GetString()) == "SEND_OK");
  CHECK(doc["queueId"].GetInt() == 3);
  CHECK(doc["queueOffset"].GetInt64() == 42);
  auto reset = parsed(resetOffsetJson("g", "T", 1000, {{{"T", "broker-a", 0}, 5}}));
  CHECK(reset["queues"][0]["offset"].GetInt64() == 5);
  auto err = parsed(errorJson("topic \"x\" not exist", 17));
  CHECK(std::string(err["error"].GetString()) == "topic \"x\" not exist");
  CHECK(err["code"].GetInt() == 17);
}

TEST_CASE("console assets: the page, its script and style are embedded with their types") {
  bool html = false, js = false, css = false;
  for (const auto& a : embeddedAssets()) {
    if (a.path == "/index.html") html = a.contentType.starts_with("text/html") && a.body.find("/console.js") != std::string_view::npos;
    if (a.path == "/console.js") js = a.contentType.starts_with("text/javascript") && a.body.find("/api/cluster") != std::string_view::npos;
    if (a.path == "/console.css") css = a.contentType.starts_with("text/css") && !a.body.empty();
  }
  CHECK(html);
  CHECK(js);
  CHECK(css);
}
