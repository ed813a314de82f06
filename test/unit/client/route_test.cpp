#include <doctest/doctest.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <filesystem>
#include <fstream>

#include "client/admin/admin_client.h"
#include "client/client_config.h"
#include "client/client_instance.h"
#include "client/heartbeat.h"
#include "client/consumer/offset_store.h"
#include "client/route.h"
#include "common/json.h"

using namespace rmq::client;

TEST_CASE("route bodies in fastjson form (unquoted broker ids) parse; queue lists follow Java") {
  std::string body =
      R"({"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911",1:"127.0.0.1:10921"},"brokerName":"broker-b","cluster":"C"},)"
      R"({"brokerAddrs":{"0":"127.0.0.1:20911"},"brokerName":"broker-a","cluster":"C"},)"
      R"({"brokerAddrs":{1:"127.0.0.1:30911"},"brokerName":"broker-s","cluster":"C"}],"filterServerTable":{},)"
      R"("queueDatas":[{"brokerName":"broker-b","perm":6,"readQueueNums":2,"topicSysFlag":0,"writeQueueNums":3},)"
      R"({"brokerName":"broker-a","perm":4,"readQueueNums":2,"topicSysFlag":0,"writeQueueNums":2},)"
      R"({"brokerName":"broker-s","perm":6,"readQueueNums":1,"topicSysFlag":0,"writeQueueNums":1}]})";
  auto route = parseTopicRouteData(body);
  REQUIRE(route.ok());
  REQUIRE(route->brokerDatas.size() == 3);
  CHECK(*route->broker("broker-b")->masterAddr() == "127.0.0.1:10911");
  CHECK(route->broker("broker-b")->brokerAddrs.at(1) == "127.0.0.1:10921");
  CHECK(*route->broker("broker-a")->masterAddr() == "127.0.0.1:20911");
  auto pub = publishQueues("T", *route);  // broker-a not writable, broker-s has no master
  REQUIRE(pub.size() == 3);
  CHECK(pub[0] == MessageQueue{"T", "broker-b", 0});
  CHECK(pub[2].queueId == 2);
  auto sub = subscribeQueues("T", *route);
  REQUIRE(sub.size() == 5);
  CHECK(sub[0] == MessageQueue{"T", "broker-a", 0});
  CHECK(sub[4] == MessageQueue{"T", "broker-s", 0});
  route->orderTopicConf = "broker-a:2;broker-b:1";
  auto ordered = publishQueues("T", *route);
  REQUIRE(ordered.size() == 3);
  CHECK(ordered[2] == MessageQueue{"T", "broker-b", 0});
  CHECK_FALSE(parseTopicRouteData("{not json").ok());
}

TEST_CASE("cluster info, topic list and KV table bodies parse") {
  auto ci = parseClusterInfo(
      R"({"brokerAddrTable":{"b1":{"brokerAddrs":{0:"1.2.3.4:10911"},"brokerName":"b1","cluster":"C"}},"clusterAddrTable":{"C":["b1"]}})");
  REQUIRE(ci.ok());
  CHECK(*ci->brokerAddrTable.at("b1").masterAddr() == "1.2.3.4:10911");
  CHECK(ci->clusterAddrTable.at("C") == std::vector<std::string>{"b1"});
  CHECK(parseTopicList(R"({"topicList":["A","B"]})").value() == std::vector<std::string>{"A", "B"});
  CHECK(parseKvTable(R"({"table":{"k":"v"}})").value().at("k") == "v");
  auto props = parsePropertiesText("# comment\na=1\r\nb=x=y\n\n");
  CHECK(props.size() == 2);
  CHECK(props.at("b") == "x=y");
  CHECK(toPropertiesText(props) == "a=1\nb=x=y\n");
}

TEST_CASE("name server lists and client ids") {
  CHECK(splitNamesrvAddr("a:9876;b:9876") == std::vector<std::string>{"a:9876", "b:9876"});
  CHECK(splitNamesrvAddr(" a:1 ; ;b:2,c:3 ") == std::vector<std::string>{"a:1", "b:2", "c:3"});
  CHECK(buildClientId("10.0.0.9", "123#456", "") == "10.0.0.9@123#456");
  CHECK(buildClientId("10.0.0.9", "i", "u") == "10.0.0.9@i@u");
  ClientConfig cfg;
  setenv("NAMESRV_ADDR", "x:1;y:2", 1);
  CHECK(resolveNamesrvAddr(cfg).size() == 2);
  cfg.namesrvAddr = "z:3";
  CHECK(resolveNamesrvAddr(cfg) == std::vector<std::string>{"z:3"});
  unsetenv("NAMESRV_ADDR");
}

TEST_CASE("heartbeat body carries subscription tags and Java hash codes") {
  auto f = rmq::filter::compileExpression(rmq::filter::ExpressionType::Tag, "TagA || TagB");
  ConsumerData c;
  c.groupName = "cg1";
  c.subscriptions.push_back(makeSubscriptionData("TopicTest", f.value()));
  std::string body = encodeHeartbeat("ip@1", {"pg"}, {c});
  rapidjson::Document doc;
  REQUIRE(rmq::json::parse(body, doc).ok());
  CHECK(std::string(doc["clientID"].GetString()) == "ip@1");
  auto& cd = doc["consumerDataSet"][0];
  CHECK(std::string(cd["consumeType"].GetString()) == "CONSUME_PASSIVELY");
  CHECK(std::string(cd["messageModel"].GetString()) == "CLUSTERING");
  auto& sub = cd["subscriptionDataSet"][0];
  CHECK(sub["codeSet"][0].GetInt() == 2598919);
  CHECK(sub["codeSet"][1].GetInt() == 2598920);
  CHECK(std::string(sub["subString"].GetString()) == "TagA || TagB");
  CHECK(std::string(sub["expressionType"].GetString()) == "TAG");
  CHECK(sub["subVersion"].GetInt64() > 0);
  CHECK(std::string(doc["producerDataSet"][0]["groupName"].GetString()) == "pg");
  auto sql = rmq::filter::compileExpression(rmq::filter::ExpressionType::Sql92, "a > 1");
  auto s2 = makeSubscriptionData("T", sql.value());
  CHECK(s2.expressionType == "SQL92");
  CHECK(s2.subString == "a > 1");
  CHECK(s2.subVersion > c.subscriptions[0].subVersion);
}

TEST_CASE("broadcasting offsets survive in the local offset file") {
  auto dir = std::filesystem::temp_directory_path() / ("rmq_offsets_" + std::to_string(::getpid()));
  MessageQueue q0{"T", "b", 0}, q1{"T", "b", 1};
  asio::io_context io;
  {
    LocalFileOffsetStore store(dir.string(), "ip@inst", "g");
    store.update(q0, 42, true);
    store.update(q0, 40, true);  // increase-only keeps 42
    store.update(q1, 7, false);
    std::set<MessageQueue> both{q0, q1};
    asio::co_spawn(io, store.persistAll(both), asio::detached);
    io.run();
    io.restart();
    CHECK(std::filesystem::exists(store.path()));
  }
  LocalFileOffsetStore again(dir.string(), "ip@inst", "g");
  again.load();
  int64_t r0 = -5, r1 = -5, r2 = -5;
  auto readAll = [](LocalFileOffsetStore* s, MessageQueue a, MessageQueue b, int64_t* o0, int64_t* o1,
                    int64_t* o2) -> asio::awaitable<void> {  // parameters, not captures: they live in the frame
    *o0 = co_await s->readStore(a);
    *o1 = co_await s->readStore(b);
    MessageQueue missing{"T", "b", 9};
    *o2 = co_await s->readStore(missing);
  };
  asio::co_spawn(io, readAll(&again, q0, q1, &r0, &r1, &r2), asio::detached);
  io.run();
  CHECK(r0 == 42);
  CHECK(r1 == 7);
  CHECK(r2 == -1);
  CHECK(again.readMemory(q0) == 42);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a client instance refuses blocking calls before start() and after shutdown() instead of hanging") {
  ClientConfig cfg;
  cfg.namesrvAddr = "127.0.0.1:1";  // never contacted: nothing here waits on a name server
  auto inst = ClientInstance::create(cfg, "runSyncGuard");
  auto answer = []() -> asio::awaitable<int> { co_return 42; };
  CHECK_THROWS_AS(inst->runSync(answer()), std::logic_error);
  REQUIRE(inst->start().ok());
  CHECK(inst->runSync(answer()) == 42);
  inst->shutdown();
  CHECK_THROWS_AS(inst->runSync(answer()), std::logic_error);
}
