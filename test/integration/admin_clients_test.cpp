// Client-related admin codes: connection lists, producer table, INVOKE_BROKER_TO_RESET_OFFSET
// (+ the RESET_CONSUMER_CLIENT_OFFSET push), LOCK/UNLOCK_BATCH_MQ, CHECK_CLIENT_CONFIG,
// GET_CONSUMER_RUNNING_INFO forwarding.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include <atomic>
#include <mutex>

#include "broker_calls.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;

TEST_CASE("admin clients: consumer and producer connection lists, producer table") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "ConnTopic", 1);
  CHECK(invoke(c, addr, request(RequestCode::GET_CONSUMER_CONNECTION_LIST, {{"consumerGroup", "cg_conn"}})).code ==
        ResponseCode::CONSUMER_NOT_ONLINE);
  CHECK(invoke(c, addr, request(RequestCode::GET_PRODUCER_CONNECTION_LIST, {{"producerGroup", "pg_conn"}})).code ==
        ResponseCode::SYSTEM_ERROR);
  REQUIRE(invoke(c, addr, heartbeatRequest("127.0.0.1@conn", "cg_conn", {"ConnTopic"}, {"pg_conn"})).code == 0);

  auto cc = parseBody(invoke(c, addr, request(RequestCode::GET_CONSUMER_CONNECTION_LIST, {{"consumerGroup", "cg_conn"}})));
  REQUIRE(cc["connectionSet"].Size() == 1);
  CHECK(std::string(cc["connectionSet"][0]["clientId"].GetString()) == "127.0.0.1@conn");
  CHECK(std::string(cc["connectionSet"][0]["clientAddr"].GetString()).starts_with("127.0.0.1:"));
  CHECK(cc["subscriptionTable"].HasMember("ConnTopic"));
  CHECK(std::string(cc["subscriptionTable"]["ConnTopic"]["subString"].GetString()) == "*");
  CHECK(cc.HasMember("messageModel"));

  auto pc = parseBody(invoke(c, addr, request(RequestCode::GET_PRODUCER_CONNECTION_LIST, {{"producerGroup", "pg_conn"}})));
  REQUIRE(pc["connectionSet"].Size() == 1);
  CHECK(std::string(pc["connectionSet"][0]["clientId"].GetString()) == "127.0.0.1@conn");

  auto all = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_PRODUCER_INFO, {})));
  REQUIRE(all["data"].HasMember("pg_conn"));
  CHECK(std::string(all["data"]["pg_conn"][0]["clientId"].GetString()) == "127.0.0.1@conn");
  // ProducerInfo.remoteIP is Netty's channel.remoteAddress().toString(), with the leading '/'.
  CHECK(std::string(all["data"]["pg_conn"][0]["remoteIP"].GetString()).starts_with("/127.0.0.1:"));
  CHECK(all["data"]["pg_conn"][0]["lastUpdateTimestamp"].GetInt64() > 0);
}

TEST_CASE("admin reset offset: computes offsets by time and pushes RESET_CONSUMER_CLIENT_OFFSET to consumers") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "ResetTopic", 2);
  std::vector<SendSpec> sends;
  for (int i = 0; i < 4; ++i) sends.push_back({.topic = "ResetTopic", .queueId = i % 2});
  sendDispatched(c, addr, sends);
  auto reset = [&](const char* ts, const char* force) {
    return invoke(c, addr, request(RequestCode::INVOKE_BROKER_TO_RESET_OFFSET,
                                 {{"topic", "ResetTopic"}, {"group", "cg_reset"}, {"timestamp", ts}, {"isForce", force}}));
  };
  CHECK(reset("-1", "true").code == ResponseCode::SYSTEM_ERROR);  // group has no offsets yet
  for (int q = 0; q < 2; ++q) {
    REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_CONSUMER_OFFSET,
                                  {{"consumerGroup", "cg_reset"}, {"topic", "ResetTopic"}, {"queueId", std::to_string(q)},
                                   {"commitOffset", "1"}})).code == 0);
  }
  CHECK(reset("-1", "true").code == ResponseCode::CONSUMER_NOT_ONLINE);

  std::mutex mu;
  std::vector<net::RemotingCommand> pushes;
  c.raw().dispatcher().registerProcessor(
      RequestCode::RESET_CONSUMER_CLIENT_OFFSET,
      [&](net::ConnectionPtr, net::RemotingCommand cmd) -> asio::awaitable<std::optional<net::RemotingCommand>> {
        std::lock_guard lk(mu);
        pushes.push_back(std::move(cmd));
        co_return std::nullopt;
      });
  REQUIRE(invoke(c, addr, heartbeatRequest("127.0.0.1@reset", "cg_reset", {"ResetTopic"})).code == 0);

  auto toEnd = reset("-1", "true");
  REQUIRE(toEnd.code == 0);
  std::string expected = "{\"offsetTable\":{{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"ResetTopic\"}:2,"
                         "{\"brokerName\":\"broker-a\",\"queueId\":1,\"topic\":\"ResetTopic\"}:2}}";
  CHECK(bodyOf(toEnd) == expected);
  REQUIRE(eventually([&] { std::lock_guard lk(mu); return pushes.size() == 1; }, std::chrono::seconds(5)));
  {
    std::lock_guard lk(mu);
    CHECK(pushes[0].body == expected);
    CHECK(pushes[0].extFields.get("group") == "cg_reset");
    CHECK(pushes[0].extFields.get("topic") == "ResetTopic");
    CHECK(pushes[0].extFields.get("isForce") == "true");
  }
  // Not forced, to the beginning of time: offsets only move backwards -> 0 (< committed 1).
  auto back = reset("0", "false");
  REQUIRE(back.code == 0);
  CHECK(bodyOf(back).find("\"topic\":\"ResetTopic\"}:0") != std::string::npos);
}

TEST_CASE("admin locks: LOCK_BATCH_MQ grants free or own queues, UNLOCK_BATCH_MQ releases them") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  auto body = [](const std::string& client) {
    return "{\"clientId\":\"" + client + "\",\"consumerGroup\":\"cg_lock\",\"mqSet\":["
           "{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"LockTopic\"},"
           "{\"brokerName\":\"broker-a\",\"queueId\":1,\"topic\":\"LockTopic\"}]}";
  };
  auto lockedCount = [&](const std::string& client) {
    auto r = invoke(c, addr, request(RequestCode::LOCK_BATCH_MQ, {}, body(client)));
    REQUIRE(r.code == 0);
    return static_cast<int>(parseBody(r)["lockOKMQSet"].Size());
  };
  CHECK(lockedCount("A") == 2);
  CHECK(lockedCount("A") == 2);  // refresh by the holder
  CHECK(lockedCount("B") == 0);
  REQUIRE(invoke(c, addr, request(RequestCode::UNLOCK_BATCH_MQ, {}, body("B"))).code == 0);  // not B's: no effect
  CHECK(lockedCount("B") == 0);
  REQUIRE(invoke(c, addr, request(RequestCode::UNLOCK_BATCH_MQ, {}, body("A"))).code == 0);
  CHECK(lockedCount("B") == 2);
  CHECK(invoke(c, addr, request(RequestCode::LOCK_BATCH_MQ, {}, "not json")).code == ResponseCode::SYSTEM_ERROR);
}

TEST_CASE("admin locks: a lock not renewed within rebalanceLockMaxLiveTime goes to another client") {
  DevNode node({.extraBroker = "rebalanceLockMaxLiveTime = 2000\n"});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  auto lockedCount = [&](const std::string& client) {
    std::string body = "{\"clientId\":\"" + client + "\",\"consumerGroup\":\"cg_expire\",\"mqSet\":["
                       "{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"LockTopic\"}]}";
    auto r = invoke(c, addr, request(RequestCode::LOCK_BATCH_MQ, {}, body));
    REQUIRE(r.code == 0);
    return static_cast<int>(parseBody(r)["lockOKMQSet"].Size());
  };
  const auto lockedAt = std::chrono::steady_clock::now();
  REQUIRE(lockedCount("A") == 1);
  CHECK(lockedCount("B") == 0);  // held by A (2 s lifetime)
  // A stops renewing: once the lifetime passed, B's next attempt takes the queue.
  REQUIRE(eventually([&] { return lockedCount("B") == 1; }, std::chrono::seconds(20)));
  CHECK(std::chrono::steady_clock::now() - lockedAt >= std::chrono::milliseconds(2000));
  CHECK(lockedCount("A") == 0);  // now B's
}

TEST_CASE("admin CHECK_CLIENT_CONFIG: TAG always ok, SQL92 compiled, disabled SQL92 refused") {
  auto check = [](TestClient& c, const std::string& addr, const std::string& type, const std::string& expr) {
    std::string body = "{\"clientId\":\"x\",\"group\":\"cg_check\",\"subscriptionData\":{\"topic\":\"T\","
                       "\"expressionType\":\"" + type + "\",\"subString\":\"" + expr + "\"}}";
    return invoke(c, addr, request(RequestCode::CHECK_CLIENT_CONFIG, {}, body)).code;
  };
  {
    DevNode node;
    REQUIRE(node.start());
    TestClient c;
    CHECK(check(c, node.brokerAddr, "TAG", "a || b") == 0);
    CHECK(check(c, node.brokerAddr, "SQL92", "a > 3 AND b = 'x'") == 0);
    CHECK(check(c, node.brokerAddr, "SQL92", "a >>> ") == ResponseCode::SUBSCRIPTION_PARSE_FAILED);
  }
  DevNode node({.propertyFilter = false});
  REQUIRE(node.start());
  TestClient c;
  CHECK(check(c, node.brokerAddr, "SQL92", "a > 3") == ResponseCode::SYSTEM_ERROR);
  CHECK(check(c, node.brokerAddr, "TAG", "*") == 0);
}

TEST_CASE("admin GET_CONSUMER_RUNNING_INFO is forwarded to the named consumer and its answer relayed") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "RunTopic", 1);
  c.raw().dispatcher().registerProcessor(
      RequestCode::GET_CONSUMER_RUNNING_INFO,
      [](net::ConnectionPtr, net::RemotingCommand cmd) -> asio::awaitable<std::optional<net::RemotingCommand>> {
        auto r = net::RemotingCommand::response(0);
        r.body = "{\"properties\":{\"group\":\"" + std::string(cmd.extFields.get("consumerGroup")) + "\"}}";
        co_return r;
      });
  REQUIRE(invoke(c, addr, heartbeatRequest("127.0.0.1@run", "cg_run", {"RunTopic"})).code == 0);
  auto r = invoke(c, addr, request(RequestCode::GET_CONSUMER_RUNNING_INFO,
                                 {{"consumerGroup", "cg_run"}, {"clientId", "127.0.0.1@run"}, {"jstackEnable", "false"}}));
  CHECK(r.code == 0);
  CHECK(bodyOf(r) == "{\"properties\":{\"group\":\"cg_run\"}}");
  auto missing = invoke(c, addr, request(RequestCode::GET_CONSUMER_RUNNING_INFO,
                                       {{"consumerGroup", "cg_run"}, {"clientId", "nobody"}}));
  CHECK(missing.code == ResponseCode::SYSTEM_ERROR);
}

TEST_CASE("admin INVOKE_BROKER_TO_GET_CONSUMER_STATUS gathers every consumer's queue offsets") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "StatusTopic", 1);
  const std::string mq = R"({"brokerName":"broker-a","queueId":0,"topic":"StatusTopic"})";
  c.raw().dispatcher().registerProcessor(
      RequestCode::GET_CONSUMER_STATUS_FROM_CLIENT,
      [mq](net::ConnectionPtr, net::RemotingCommand cmd) -> asio::awaitable<std::optional<net::RemotingCommand>> {
        auto r = net::RemotingCommand::response(0);
        if (cmd.extFields.get("topic") == "StatusTopic") r.body = "{\"messageQueueTable\":{" + mq + ":5}}";
        co_return r;
      });
  CHECK(invoke(c, addr, request(RequestCode::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                              {{"topic", "StatusTopic"}, {"group", "cg_status"}})).code == ResponseCode::SYSTEM_ERROR);
  REQUIRE(invoke(c, addr, heartbeatRequest("127.0.0.1@status", "cg_status", {"StatusTopic"})).code == 0);
  auto r = invoke(c, addr, request(RequestCode::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                                 {{"topic", "StatusTopic"}, {"group", "cg_status"}}));
  REQUIRE(r.code == 0);
  CHECK(bodyOf(r) == "{\"consumerTable\":{\"127.0.0.1@status\":{" + mq + ":5}},\"messageQueueTable\":{}}");
}
