// Delay levels (SCHEDULE_TOPIC_XXXX -> real topic), delayOffset.json across restarts,
// CONSUMER_SEND_MSG_BACK to %RETRY%<group> and %DLQ%<group>. Short delay levels in the config.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "broker_calls.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;

namespace {

const std::string kShortLevels = "1s 2s 1s 1s 2s 3s";

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
  DevNode node({.delayLevels = kShortLevels});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "DelayTopic", 2);
  auto t0 = std::chrono::steady_clock::now();
  SendSpec s;
  s.topic = "DelayTopic";
  s.queueId = 1;
  s.body = "later";
  s.tags = "TagD";
  s.extraProps = {{"DELAY", "2"}};
  sendOk(c, addr, s);
  REQUIRE(dispatched(c, addr, "SCHEDULE_TOPIC_XXXX", 1, 1));
  CHECK(maxOffset(c, addr, "DelayTopic", 1) == 0);

  auto scheduleStat = [&](const char* key) {
    auto info = parseBody(invoke(c, addr, request(RequestCode::GET_BROKER_RUNTIME_INFO, {})));
    return info["table"].HasMember(key) ? std::string(info["table"][key].GetString()) : std::string("absent");
  };
  CHECK(scheduleStat("scheduleMessageOffset_2") == "absent");  // as Java: levels appear once they deliver

  REQUIRE(eventually([&] { return maxOffset(c, addr, "DelayTopic", 1) == 1; }, std::chrono::seconds(10)));
  auto elapsed = std::chrono::steady_clock::now() - t0;
  CHECK(elapsed >= std::chrono::milliseconds(1900));  // never before its delay
  // The level's offset moves right after the delivered copy is stored (which the check above saw).
  CHECK(eventually([&] { return scheduleStat("scheduleMessageOffset_2") == "1,1"; }, std::chrono::seconds(5)));
  CHECK(scheduleStat("scheduleMessageOffset_1") == "absent");
  auto msgs = pullMessages(c, addr, {.topic = "DelayTopic", .queueId = 1});
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
  CHECK(pulledMessages(invoke(c, addr, pullRequest(p))).size() == 1);

  REQUIRE(eventually([&] {
    return bodyOf(invoke(c, addr, request(RequestCode::GET_ALL_DELAY_OFFSET, {}))).find("2:1") != std::string::npos;
  }, std::chrono::seconds(5)));
}

TEST_CASE("delay: progress survives restart; a message pending at shutdown is delivered after it, once") {
  DevNode node({.delayLevels = kShortLevels});
  REQUIRE(node.start());
  auto addr = node.brokerAddr;
  {
    TestClient c;
    createTopic(c, addr, "DelayRestart", 1);
    SendSpec s;
    s.topic = "DelayRestart";
    s.body = "first";
    s.extraProps = {{"DELAY", "1"}};
    sendOk(c, addr, s);
    REQUIRE(eventually([&] { return maxOffset(c, addr, "DelayRestart", 0) == 1; }, std::chrono::seconds(10)));
    s.body = "second";
    s.extraProps = {{"DELAY", "6"}};  // 3 s: still pending when we stop
    sendOk(c, addr, s);
  }
  REQUIRE(node.proc.stop() == 0);
  CHECK(node.proc.readFile("store/config/delayOffset.json").find("1:1") != std::string::npos);
  REQUIRE(node.restart());
  TestClient c;
  REQUIRE(eventually([&] { return maxOffset(c, addr, "DelayRestart", 0) == 2; }, std::chrono::seconds(15)));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  CHECK(maxOffset(c, addr, "DelayRestart", 0) == 2);  // "first" was not delivered again
  auto msgs = pullMessages(c, addr, {.topic = "DelayRestart"});
  REQUIRE(msgs.size() == 2);
  CHECK(msgs[0].body == "first");
  CHECK(msgs[1].body == "second");
}

TEST_CASE("retry: CONSUMER_SEND_MSG_BACK goes through %RETRY%<group> with RETRY_TOPIC, ORIGIN_MESSAGE_ID, reconsume count") {
  DevNode node({.delayLevels = kShortLevels});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "RetryTopic", 1);
  auto sent = sendDispatched(c, addr, {{.topic = "RetryTopic", .body = "payload", .keys = "k1"}});
  std::string originId(sent[0].extFields.get("msgId"));
  auto original = pullMessages(c, addr, {.topic = "RetryTopic"});
  REQUIRE(original.size() == 1);

  REQUIRE(invoke(c, addr, sendBack(original[0].commitLogOffset, "cg_retry", 0)).code == 0);
  auto topics = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(topics["topicConfigTable"].HasMember("%RETRY%cg_retry"));
  CHECK(topics["topicConfigTable"]["%RETRY%cg_retry"]["perm"].GetInt() == 6);
  // Level 3 (1 s here) later it is on the retry topic.
  REQUIRE(eventually([&] { return maxOffset(c, addr, "%RETRY%cg_retry", 0) == 1; }, std::chrono::seconds(10)));
  auto retried = pullMessages(c, addr, {.group = "cg_retry", .topic = "%RETRY%cg_retry"});
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
  REQUIRE(invoke(c, addr, sendBack(m.commitLogOffset, "cg_retry", 0)).code == 0);
  REQUIRE(eventually([&] { return maxOffset(c, addr, "%RETRY%cg_retry", 0) == 2; }, std::chrono::seconds(10)));
  auto second = pullMessages(c, addr, {.group = "cg_retry", .topic = "%RETRY%cg_retry", .offset = 1});
  REQUIRE(second.size() == 1);
  CHECK(second[0].reconsumeTimes == 2);
  CHECK(*second[0].property("ORIGIN_MESSAGE_ID") == originId);
  CHECK(*second[0].property("RETRY_TOPIC") == "RetryTopic");

  CHECK(invoke(c, addr, sendBack(999999999, "cg_retry", 0)).code == ResponseCode::SYSTEM_ERROR);
}

TEST_CASE("DLQ: after maxReconsumeTimes, or with delayLevel < 0, the message goes to %DLQ%<group> at once") {
  DevNode node({.delayLevels = kShortLevels});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "DlqTopic", 1);
  sendDispatched(c, addr, {{.topic = "DlqTopic", .body = "poison"}});
  auto original = pullMessages(c, addr, {.topic = "DlqTopic"});
  REQUIRE(original.size() == 1);

  // maxReconsumeTimes 0 from the header: first give-back is already past the limit.
  REQUIRE(invoke(c, addr, sendBack(original[0].commitLogOffset, "cg_dlq", 0, 0)).code == 0);
  REQUIRE(dispatched(c, addr, "%DLQ%cg_dlq", 0, 1));
  auto topics = parseBody(invoke(c, addr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(topics["topicConfigTable"].HasMember("%DLQ%cg_dlq"));
  CHECK(topics["topicConfigTable"]["%DLQ%cg_dlq"]["perm"].GetInt() == 6);
  CHECK(topics["topicConfigTable"]["%DLQ%cg_dlq"]["writeQueueNums"].GetInt() == 1);
  auto dead = pullMessages(c, addr, {.group = "cg_dlq", .topic = "%DLQ%cg_dlq"});
  REQUIRE(dead.size() == 1);
  CHECK(dead[0].body == "poison");
  CHECK(dead[0].reconsumeTimes == 1);
  CHECK(*dead[0].property("RETRY_TOPIC") == "DlqTopic");

  REQUIRE(invoke(c, addr, sendBack(original[0].commitLogOffset, "cg_dlq", -1)).code == 0);
  REQUIRE(dispatched(c, addr, "%DLQ%cg_dlq", 0, 2));
  CHECK(maxOffset(c, addr, "%RETRY%cg_dlq", 0) <= 0);

  // The group's retryMaxTimes applies when the header has none.
  REQUIRE(invoke(c, addr, request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {},
                                R"({"groupName":"cg_dlq2","retryMaxTimes":0})")).code == 0);
  REQUIRE(invoke(c, addr, sendBack(original[0].commitLogOffset, "cg_dlq2", 0)).code == 0);
  REQUIRE(dispatched(c, addr, "%DLQ%cg_dlq2", 0, 1));
}

TEST_CASE("send-back to an unknown group is refused when auto-creation is off") {
  DevNode node({.extraBroker = "autoCreateSubscriptionGroup = false", .delayLevels = kShortLevels});
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "NoGroupTopic", 1);
  SendSpec s;
  s.topic = "NoGroupTopic";
  sendOk(c, addr, s);
  auto r = invoke(c, addr, sendBack(0, "cg_unknown", 0));
  CHECK(r.code == ResponseCode::SUBSCRIPTION_GROUP_NOT_EXIST);
}
