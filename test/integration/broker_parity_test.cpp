// Broker answers that must match Apache RocketMQ 4.9.8 (issue 25 §3): consumeBroadcastEnable=false
// refuses a broadcasting consumer's pull, maxMessageSize bounds a whole batch, and
// RESUME_CHECK_HALF_MESSAGE (323) puts a transaction message back to be checked again (also
// through `rmqadmin resumeCheckHalfMessage`). Remarks as Java's (test/reference/parity/java-4.9.8.txt).
#include <doctest/doctest.h>

#include "broker_calls.h"
#include "broker_transaction_helpers.h"
#include "common/message_codec.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;

namespace {

// Every record of the half queue whose body is `body`, in queue order.
std::vector<MessageExt> halvesWithBody(TestClient& c, const std::string& addr, const std::string& body) {
  std::vector<MessageExt> out;
  for (int64_t off = 0;;) {
    auto msgs = tx::pullAt(c, addr, tx::kHalf, 0, off);
    if (msgs.empty()) break;
    for (auto& m : msgs)
      if (m.body == body) out.push_back(m);
    off = msgs.back().queueOffset + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("consumeBroadcastEnable=false: a broadcasting consumer's pull gets NO_PERMISSION, clustering ones read") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "BcastT", 1);
  sendOk(c, addr, {.topic = "BcastT", .body = "one"});
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
  for (auto& m : items) m.body = std::string(900, 'b');  // each fits alone; together they do not
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
  std::string msgId(sent.extFields.get("msgId").value_or(""));
  REQUIRE(!msgId.empty());
  auto halves = halvesWithBody(c, addr, "resume-me");
  REQUIRE(halves.size() == 1);

  auto resumed = invoke(c, addr, request(RequestCode::RESUME_CHECK_HALF_MESSAGE, {{"msgId", msgId}}));
  CHECK(resumed.code == ResponseCode::SUCCESS);
  REQUIRE(dispatched(c, addr, tx::kHalf, 0, halves[0].queueOffset + 2));
  halves = halvesWithBody(c, addr, "resume-me");
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
  CHECK(halvesWithBody(c, addr, "resume-me").size() == 3);
  CHECK(tools::admin(node, "resumeCheckHalfMessage", {"-i", "zz"}).exitCode == 1);
}
