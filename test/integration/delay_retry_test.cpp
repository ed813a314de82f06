// Delay levels (SCHEDULE_TOPIC_XXXX -> real topic), delayOffset.json across restarts,
// CONSUMER_SEND_MSG_BACK to %RETRY%<group> and %DLQ%<group>. Short delay levels in the config.
#include <doctest/doctest.h>

#include "admin_test_util.h"
#include "common/message_id.h"
#include "common/response_code.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::admin;

namespace {

const std::string kShortLevels = "messageDelayLevel = \"1s 2s 1s 1s 2s 3s\"\n";

net::RemotingCommand sendBack(int64_t commitLogOffset, const std::string& group, int delayLevel,
                              std::optional<int> maxReconsumeTimes = std::nullopt) {
  auto cmd = request(RequestCode::CONSUMER_SEND_MSG_BACK,
                     {{"offset", std::to_string(commitLogOffset)}, {"group", group},
                      {"delayLevel", std::to_string(delayLevel)}, {"originTopic", "RetryTopic"}});
  if (maxReconsumeTimes) cmd.extFields.set("maxReconsumeTimes", std::to_string(*maxReconsumeTimes));
  return cmd;
}

}  // namespace

TEST_CASE("delay: a level-2 message is held in SCHEDULE_TOPIC_XXXX, then delivered to its real topic") {
  DevNode node("", kShortLevels);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr();
  createTopic(c, addr, "DelayTopic", 2);
  auto t0 = std::chrono::steady_clock::now();
  SendSpec s;
  s.topic = "DelayTopic";
  s.queueId = 1;
  s.body = "later";
  s.tags = "TagD";
  s.extraProps = {{"DELAY", "2"}};
  sendOk(c, addr, s);
  waitDispatched(c, addr, "SCHEDULE_TOPIC_XXXX", 1, 1);
  CHECK(maxOffset(c, addr, "DelayTopic", 1) == 0);

  REQUIRE(waitFor([&] { return maxOffset(c, addr, "DelayTopic", 1) == 1; }, std::chrono::seconds(10)));
  auto elapsed = std::chrono::steady_clock::now() - t0;
  CHECK(elapsed >= std::chrono::milliseconds(1900));  // never before its delay
  auto msgs = pullAll(c, addr, "DelayTopic", 1);
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].topic == "DelayTopic");
  CHECK(msgs[0].queueId == 1);
  CHECK(msgs[0].body == "later");
  REQUIRE(msgs[0].property("DELAY"));
  CHECK(*msgs[0].property("DELAY") == "2");  // kept, as RocketMQ 4.9 stores it
  REQUIRE(msgs[0].property("REAL_TOPIC"));
  CHECK(*msgs[0].property("REAL_TOPIC") == "DelayTopic");
  CHECK(*msgs[0].property("TAGS") == "TagD");
  // Tag filtering works on the delivered copy (tags code recomputed from TAGS).
  PullSpec p;
  p.group = "cg_delay";
  p.topic = "DelayTopic";
  p.queueId = 1;
  p.subscription = "TagD";
  CHECK(pulledMessages(call(c, addr, pullRequest(p))).size() == 1);

  REQUIRE(waitFor([&] {
    return bodyOf(call(c, addr, request(RequestCode::GET_ALL_DELAY_OFFSET, {}))).find("2:1") != std::string::npos;
  }, std::chrono::seconds(5)));
}

TEST_CASE("delay: progress survives restart; a message pending at shutdown is delivered after it, once") {
  DevNode node("", kShortLevels);
  REQUIRE(node.start());
  auto addr = node.brokerAddr();
  {
    TestClient c;
    createTopic(c, addr, "DelayRestart", 1);
    SendSpec s;
    s.topic = "DelayRestart";
    s.body = "first";
    s.extraProps = {{"DELAY", "1"}};
    sendOk(c, addr, s);
    REQUIRE(waitFor([&] { return maxOffset(c, addr, "DelayRestart", 0) == 1; }, std::chrono::seconds(10)));
    s.body = "second";
    s.extraProps = {{"DELAY", "6"}};  // 3 s: still pending when we stop
    sendOk(c, addr, s);
  }
  REQUIRE(node.proc.stop() == 0);
  CHECK(node.proc.readFile("store/config/delayOffset.json").find("1:1") != std::string::npos);
  REQUIRE(node.proc.restart(std::chrono::seconds(20)));
  TestClient c;
  REQUIRE(waitFor([&] { return maxOffset(c, addr, "DelayRestart", 0) == 2; }, std::chrono::seconds(15)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  CHECK(maxOffset(c, addr, "DelayRestart", 0) == 2);  // "first" was not delivered again
  auto msgs = pullAll(c, addr, "DelayRestart", 0);
  REQUIRE(msgs.size() == 2);
  CHECK(msgs[0].body == "first");
  CHECK(msgs[1].body == "second");
}

TEST_CASE("retry: CONSUMER_SEND_MSG_BACK goes through %RETRY%<group> with RETRY_TOPIC, ORIGIN_MESSAGE_ID, reconsume count") {
  DevNode node("", kShortLevels);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr();
  createTopic(c, addr, "RetryTopic", 1);
  SendSpec s;
  s.topic = "RetryTopic";
  s.body = "payload";
  s.keys = "k1";
  auto sent = sendOk(c, addr, s);
  std::string originId(sent.extFields.get("msgId"));
  waitDispatched(c, addr, "RetryTopic", 0, 1);
  auto original = pullAll(c, addr, "RetryTopic", 0);
  REQUIRE(original.size() == 1);

  REQUIRE(call(c, addr, sendBack(original[0].commitLogOffset, "cg_retry", 0)).code == 0);
  auto topics = parseBody(call(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(topics["topicConfigTable"].HasMember("%RETRY%cg_retry"));
  CHECK(topics["topicConfigTable"]["%RETRY%cg_retry"]["perm"].GetInt() == 6);
  // Level 3 (1 s here) later it is on the retry topic.
  REQUIRE(waitFor([&] { return maxOffset(c, addr, "%RETRY%cg_retry", 0) == 1; }, std::chrono::seconds(10)));
  auto retried = pullAll(c, addr, "%RETRY%cg_retry", 0, 0, "cg_retry");
  REQUIRE(retried.size() == 1);
  auto& m = retried[0];
  CHECK(m.body == "payload");
  CHECK(m.reconsumeTimes == 1);
  REQUIRE(m.property("RETRY_TOPIC"));
  CHECK(*m.property("RETRY_TOPIC") == "RetryTopic");
  REQUIRE(m.property("ORIGIN_MESSAGE_ID"));
  CHECK(*m.property("ORIGIN_MESSAGE_ID") == originId);
  REQUIRE(m.property("DELAY"));
  CHECK(*m.property("DELAY") == "3");  // level 3 + reconsumeTimes 0, kept as RocketMQ 4.9 stores it
  CHECK(*m.property("KEYS") == "k1");

  // Second failure: reconsumeTimes 1 -> level 4, still the same origin id.
  REQUIRE(call(c, addr, sendBack(m.commitLogOffset, "cg_retry", 0)).code == 0);
  REQUIRE(waitFor([&] { return maxOffset(c, addr, "%RETRY%cg_retry", 0) == 2; }, std::chrono::seconds(10)));
  auto second = pullAll(c, addr, "%RETRY%cg_retry", 0, 1, "cg_retry");
  REQUIRE(second.size() == 1);
  CHECK(second[0].reconsumeTimes == 2);
  CHECK(*second[0].property("ORIGIN_MESSAGE_ID") == originId);
  CHECK(*second[0].property("RETRY_TOPIC") == "RetryTopic");

  CHECK(call(c, addr, sendBack(999999999, "cg_retry", 0)).code == ResponseCode::SYSTEM_ERROR);
}

TEST_CASE("DLQ: after maxReconsumeTimes, or with delayLevel < 0, the message goes to %DLQ%<group> at once") {
  DevNode node("", kShortLevels);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr();
  createTopic(c, addr, "DlqTopic", 1);
  SendSpec s;
  s.topic = "DlqTopic";
  s.body = "poison";
  sendOk(c, addr, s);
  waitDispatched(c, addr, "DlqTopic", 0, 1);
  auto original = pullAll(c, addr, "DlqTopic", 0);
  REQUIRE(original.size() == 1);

  // maxReconsumeTimes 0 from the header: first give-back is already past the limit.
  REQUIRE(call(c, addr, sendBack(original[0].commitLogOffset, "cg_dlq", 0, 0)).code == 0);
  waitDispatched(c, addr, "%DLQ%cg_dlq", 0, 1);
  auto topics = parseBody(call(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(topics["topicConfigTable"].HasMember("%DLQ%cg_dlq"));
  CHECK(topics["topicConfigTable"]["%DLQ%cg_dlq"]["perm"].GetInt() == 6);
  CHECK(topics["topicConfigTable"]["%DLQ%cg_dlq"]["writeQueueNums"].GetInt() == 1);
  auto dead = pullAll(c, addr, "%DLQ%cg_dlq", 0, 0, "cg_dlq");
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].body == "poison");
  CHECK(dead[0].reconsumeTimes == 1);
  CHECK(*dead[0].property("RETRY_TOPIC") == "DlqTopic");

  REQUIRE(call(c, addr, sendBack(original[0].commitLogOffset, "cg_dlq", -1)).code == 0);
  waitDispatched(c, addr, "%DLQ%cg_dlq", 0, 2);
  CHECK(maxOffset(c, addr, "%RETRY%cg_dlq", 0) <= 0);

  // The group's retryMaxTimes applies when the header has none.
  REQUIRE(call(c, addr, request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {},
                                R"({"groupName":"cg_dlq2","retryMaxTimes":0})")).code == 0);
  REQUIRE(call(c, addr, sendBack(original[0].commitLogOffset, "cg_dlq2", 0)).code == 0);
  waitDispatched(c, addr, "%DLQ%cg_dlq2", 0, 1);
}

TEST_CASE("send-back to an unknown group is refused when auto-creation is off") {
  DevNode node("autoCreateSubscriptionGroup = false\n", kShortLevels);
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr();
  createTopic(c, addr, "NoGroupTopic", 1);
  SendSpec s;
  s.topic = "NoGroupTopic";
  sendOk(c, addr, s);
  auto r = call(c, addr, sendBack(0, "cg_unknown", 0));
  CHECK(r.code == ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST);
}
