// Broker answers that must match Apache RocketMQ 4.9.8 (issue 25 §3): consumeBroadcastEnable=false
// refuses a broadcasting consumer's pull, maxMessageSize bounds a whole batch, and
// RESUME_CHECK_HALF_MESSAGE (323) puts a transaction message back to be checked again (also
// through `rmqadmin resumeCheckHalfMessage`). Remarks as Java's (test/reference/parity/java-4.9.8.txt).
#include <doctest/doctest.h>

#include "broker_calls.h"
#include "broker_transaction_helpers.h"
#include "client/heartbeat.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;

TEST_CASE("consumeBroadcastEnable=false: a broadcasting consumer's pull gets NO_PERMISSION, clustering ones read") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "BcastT", 1);
  sendOk(c, addr, {.topic = "BcastT", .body = "one"});
  REQUIRE(dispatched(c, addr, "BcastT", 0, 1));
  for (auto group : {"cg_nobcast", "cg_bcast"}) {
    std::string json = std::string(R"({"groupName":")") + group + R"(","consumeBroadcastEnable":)" +
                       (std::string(group) == "cg_nobcast" ? "false" : "true") + "}";
    REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {}, json)).code == 0);
  }
  // A push consumer's pull: no subscription in the header, the group's model from its heartbeat.
  auto pullOf = [&](const std::string& group) {
    PullSpec p{.group = group, .topic = "BcastT", .sysFlag = 0};
    return invoke(c, addr, pullRequest(p));
  };
  REQUIRE(invoke(c, addr, heartbeatRequest("client-b", "cg_nobcast", {"BcastT"}, {}, true)).code == 0);
  auto refused = pullOf("cg_nobcast");
  CHECK(refused.code == ResponseCode::NO_PERMISSION);
  CHECK(refused.remark == "the consumer group[cg_nobcast] can not consume by broadcast way");

  REQUIRE(invoke(c, addr, heartbeatRequest("client-b", "cg_bcast", {"BcastT"}, {}, true)).code == 0);
  CHECK(pullOf("cg_bcast").code == ResponseCode::SUCCESS);
  // Clustering consumers of the same group config are not affected.
  REQUIRE(invoke(c, addr, heartbeatRequest("client-c", "cg_nobcast", {"BcastT"})).code == 0);
  CHECK(pullOf("cg_nobcast").code == ResponseCode::SUCCESS);
}

TEST_CASE("maxMessageSize bounds the whole batch as sent (Java's checkMessages), with Java's remark") {
  DevNode node({.extraStore = "maxMessageSize = 2000"});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "BatchMaxT", 1);
  std::vector<Message> items(3);
  for (auto& m : items) m.body = std::string(800, 'b');  // each fits alone; together they do not
  auto refused = invoke(c, addr, batchRequest("BatchMaxT", 0, items));
  CHECK(refused.code == ResponseCode::MESSAGE_ILLEGAL);
  CHECK(refused.remark == "the message is illegal, maybe msg body or properties length not matched. msg body length "
                          "limit 2000B, msg properties length limit 32KB.");
  items.pop_back();
  CHECK(invoke(c, addr, batchRequest("BatchMaxT", 0, items)).code == ResponseCode::SUCCESS);
  auto single = invoke(c, addr, sendRequest({.topic = "BatchMaxT", .body = std::string(2001, 'x')}));
  CHECK(single.code == ResponseCode::MESSAGE_ILLEGAL);
  CHECK(single.remark == refused.remark);
}

TEST_CASE("RESUME_CHECK_HALF_MESSAGE: the message back in the half queue with TRANSACTION_CHECK_TIMES=0; rmqadmin verb") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "TxResumeT", 2);
  auto sent = sendOk(c, addr, tx::halfSpec("TxResumeT", "resume-me", "pg_resume"));
  std::string msgId(sent.extFields.get("msgId"));
  REQUIRE(!msgId.empty());
  REQUIRE(dispatched(c, addr, tx::kHalf, 0, 1));
  auto halves = tx::halvesOf(c, addr, "resume-me");
  REQUIRE(halves.size() == 1);

  auto resumed = invoke(c, addr, request(RequestCode::RESUME_CHECK_HALF_MESSAGE, {{"msgId", msgId}}));
  CHECK(resumed.code == ResponseCode::SUCCESS);
  REQUIRE(dispatched(c, addr, tx::kHalf, 0, halves[0].queueOffset + 2));
  halves = tx::halvesOf(c, addr, "resume-me");
  REQUIRE(halves.size() == 2);
  CHECK(halves[1].topic == tx::kHalf);
  CHECK(tx::propOf(halves[1], "TRANSACTION_CHECK_TIMES") == "0");
  CHECK(tx::propOf(halves[1], "REAL_TOPIC") == "TxResumeT");
  CHECK(tx::propOf(halves[1], "PGROUP") == "pg_resume");
  CHECK(halves[1].bornTimestamp == halves[0].bornTimestamp);

  auto bad = invoke(c, addr, request(RequestCode::RESUME_CHECK_HALF_MESSAGE, {{"msgId", "00"}}));
  CHECK(bad.code == ResponseCode::SYSTEM_ERROR);
  CHECK(bad.remark == "Exception was thrown when putting message back to RMQ_SYS_TRANS_HALF_TOPIC.");

  auto verb = tools::admin(node, "resumeCheckHalfMessage", {"-i", msgId});
  CHECK_MESSAGE(verb.exitCode == 0, tools::describe(verb));
  REQUIRE(dispatched(c, addr, tx::kHalf, 0, halves[1].queueOffset + 2));
  CHECK(tx::halvesOf(c, addr, "resume-me").size() == 3);
  CHECK(tools::admin(node, "resumeCheckHalfMessage", {"-i", "zz"}).exitCode == 1);
}

TEST_CASE("filterSupportRetry: a retry pull applies the group's SQL92 filter of the original topic (RETRY_TOPIC)") {
  for (bool supportRetry : {true, false}) {
    INFO("filterSupportRetry=" << supportRetry);
    DevNode node({.extraBroker = std::string("filterSupportRetry = ") +  // a dev node has SQL92 on
                                 (supportRetry ? "true" : "false") + "\n"});
    REQUIRE(node.start());
    TestClient c;
    auto addr = node.brokerAddr;
    createTopic(c, addr, "SqlT", 1);
    // A push consumer's heartbeat: SQL92 on the topic, "*" on its retry topic.
    client::ConsumerData consumer;
    consumer.groupName = "cg_sqlretry";
    client::SubscriptionData sql{.topic = "SqlT", .subString = "a > 5", .expressionType = "SQL92", .subVersion = 1};
    client::SubscriptionData retry{.topic = "%RETRY%cg_sqlretry", .subVersion = 1};
    consumer.subscriptions = {sql, retry};
    auto hb = net::RemotingCommand::request(RequestCode::HEART_BEAT);
    hb.body = client::encodeHeartbeat("client-sql", {}, {consumer});
    REQUIRE(invoke(c, addr, std::move(hb)).code == 0);
    for (auto [body, a] : {std::pair{"low", "1"}, std::pair{"high", "10"}}) {
      sendOk(c, addr, {.topic = "%RETRY%cg_sqlretry", .body = body,
                       .extraProps = {{"a", a}, {"RETRY_TOPIC", "SqlT"}}, .reconsumeTimes = 1});
    }
    REQUIRE(dispatched(c, addr, "%RETRY%cg_sqlretry", 0, 2));
    PullSpec p{.group = "cg_sqlretry", .topic = "%RETRY%cg_sqlretry", .sysFlag = 0};
    auto msgs = pullMessages(c, addr, p);
    std::vector<std::string> bodies;
    for (auto& m : msgs) bodies.push_back(m.body);
    INFO("bodies: " << bodies.size() << (bodies.empty() ? "" : " first " + bodies[0]));
    if (supportRetry) CHECK(bodies == std::vector<std::string>{"high"});
    else CHECK(bodies == std::vector<std::string>{"low", "high"});
  }
}
