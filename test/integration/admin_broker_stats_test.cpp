// VIEW_BROKER_STATS_DATA (315, Java BrokerStatsManager's items as the rocketmq-exporter and
// mqadmin statsAll / brokerStatus ask for them) and `rmqadmin statsAll` over it. The broker samples
// its stats every 10 s (Java's cadence), so each test waits (bounded) for a sample.
#include <doctest/doctest.h>

#include <algorithm>

#include "broker_calls.h"
#include "broker_transaction_helpers.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "tools_util.h"

using namespace rmq;
using namespace rmq::test;
using namespace rmq::test::tools;

namespace {

constexpr auto kSampleWait = std::chrono::seconds(25);  // two 10 s samples and slack

net::RemotingCommand viewStats(TestClient& c, const DevNode& node, const std::string& name, const std::string& key) {
  return invoke(c, node.brokerAddr, request(RequestCode::VIEW_BROKER_STATS_DATA, {{"statsName", name}, {"statsKey", key}}));
}

// statsMinute.sum of an item, -1 when the broker has no such item.
int64_t minuteSum(TestClient& c, const DevNode& node, const std::string& name, const std::string& key) {
  auto resp = viewStats(c, node, name, key);
  if (resp.code != ResponseCode::SUCCESS) return -1;
  auto doc = parseBody(resp);
  return doc["statsMinute"]["sum"].GetInt64();
}

// Sends n messages over queues 0 and 1, pulls them (from where the queues ended before) as
// `group` and commits its offsets.
void sendAndConsume(TestClient& c, const DevNode& node, const std::string& topic, const std::string& group, int n) {
  int64_t from[2] = {std::max<int64_t>(0, maxOffset(c, node.brokerAddr, topic, 0)),
                     std::max<int64_t>(0, maxOffset(c, node.brokerAddr, topic, 1))};
  std::vector<SendSpec> sends;
  for (int i = 0; i < n; ++i) sends.push_back({.topic = topic, .body = "stats-" + std::to_string(i), .queueId = i % 2});
  sendDispatched(c, node.brokerAddr, sends);
  size_t pulled = 0;
  for (int q = 0; q < 2; ++q) {
    auto msgs = pullMessages(c, node.brokerAddr, {.group = group, .topic = topic, .queueId = q, .offset = from[q]});
    pulled += msgs.size();
    if (msgs.empty()) continue;
    REQUIRE(invoke(c, node.brokerAddr,
                   request(RequestCode::UPDATE_CONSUMER_OFFSET,
                           {{"consumerGroup", group}, {"topic", topic}, {"queueId", std::to_string(q)},
                            {"commitOffset", std::to_string(msgs.back().queueOffset + 1)}})).code == 0);
  }
  REQUIRE(pulled == static_cast<size_t>(n));
}

}  // namespace

TEST_CASE("admin broker stats: VIEW_BROKER_STATS_DATA counts sends and pulls in Java's windows") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  const std::string topic = uniqueName("StatsTopic");
  const std::string group = uniqueName("stats-cg");
  createTopic(c, node.brokerAddr, topic, 2);
  constexpr int kN = 6;
  sendAndConsume(c, node, topic, group, kN);

  // The next 10 s sample counts them all (the key's first sample starts from zero).
  CHECK(eventually([&] { return minuteSum(c, node, "TOPIC_PUT_NUMS", topic) == kN; }, kSampleWait));
  CHECK(eventually([&] { return minuteSum(c, node, "GROUP_GET_NUMS", topic + "@" + group) == kN; }, kSampleWait));

  auto put = parseBody(viewStats(c, node, "TOPIC_PUT_NUMS", topic));
  for (const char* window : {"statsMinute", "statsHour", "statsDay"}) {
    INFO(window);
    REQUIRE(put.HasMember(window));
    for (const char* field : {"sum", "tps", "avgpt"}) CHECK(put[window].HasMember(field));
  }
  CHECK(put["statsMinute"]["tps"].GetDouble() > 0);
  CHECK(put["statsMinute"]["avgpt"].GetDouble() == doctest::Approx(1.0));  // one message per send

  CHECK(minuteSum(c, node, "TOPIC_PUT_SIZE", topic) > kN * 100);  // record bytes, not bodies
  CHECK(minuteSum(c, node, "GROUP_GET_SIZE", topic + "@" + group) > kN * 100);
  CHECK(eventually([&] { return minuteSum(c, node, "BROKER_PUT_NUMS", "DefaultCluster") >= kN; }, kSampleWait));
  CHECK(eventually([&] { return minuteSum(c, node, "BROKER_GET_NUMS", "DefaultCluster") >= kN; }, kSampleWait));
  // Java's GROUP_GET_LATENCY key with enableDetailStat (its default): queueId@topic@group.
  CHECK(viewStats(c, node, "GROUP_GET_LATENCY", "0@" + topic + "@" + group).code == ResponseCode::SUCCESS);

  // N more: the minute window's sum moves by N.
  sendAndConsume(c, node, topic, group, kN);
  CHECK(eventually([&] { return minuteSum(c, node, "TOPIC_PUT_NUMS", topic) == 2 * kN; }, kSampleWait));

  // Java's answer for an unknown name and for a known name without that key alike.
  auto unknown = viewStats(c, node, "NO_SUCH_STATS", topic);
  CHECK(unknown.code == ResponseCode::SYSTEM_ERROR);
  CHECK(unknown.remark == "The stats <NO_SUCH_STATS> <" + topic + "> not exist");
  auto noKey = viewStats(c, node, "TOPIC_PUT_NUMS", "NeverSentTopic");
  CHECK(noKey.code == ResponseCode::SYSTEM_ERROR);
  CHECK(noKey.remark == "The stats <TOPIC_PUT_NUMS> <NeverSentTopic> not exist");
  CHECK(viewStats(c, node, "GROUP_GET_FROM_DISK_NUMS", topic + "@" + group).code == ResponseCode::SYSTEM_ERROR);
  CHECK(viewStats(c, node, "BROKER_PUT_NUMS", "OtherCluster").code == ResponseCode::SYSTEM_ERROR);
  auto missing = invoke(c, node.brokerAddr, request(RequestCode::VIEW_BROKER_STATS_DATA, {{"statsName", "TOPIC_PUT_NUMS"}}));
  CHECK(missing.code == ResponseCode::SYSTEM_ERROR);
  CHECK(missing.remark == "the custom field <statsKey> is null");
}

TEST_CASE("admin broker stats: rmqadmin statsAll prints topic and group rows") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  const std::string topic = uniqueName("StatsAllTopic");
  const std::string idle = uniqueName("StatsIdleTopic");
  const std::string group = uniqueName("statsall-cg");
  REQUIRE(node.createTopic(topic, 2));
  REQUIRE(node.createTopic(idle, 2));
  constexpr int kN = 4;
  sendAndConsume(c, node, topic, group, kN);
  REQUIRE(eventually([&] { return minuteSum(c, node, "GROUP_GET_NUMS", topic + "@" + group) == kN; }, kSampleWait));

  auto doc = adminJson(node, "statsAll", {"-t", topic});
  const auto& rows = tools::rows(doc, "stats");
  REQUIRE(rows.Size() == 1);
  CHECK(str(rows[0], "#Topic") == topic);
  CHECK(str(rows[0], "#Consumer Group") == group);
  CHECK(num(rows[0], "#InMsg24Hour") == kN);
  CHECK(num(rows[0], "#OutMsg24Hour") == kN);
  CHECK(num(rows[0], "#Accumulation") == 0);
  CHECK(rows[0]["#InTPS"].GetDouble() > 0);
  CHECK(rows[0]["#OutTPS"].GetDouble() > 0);

  // A topic nobody consumes: one NO_CONSUMER row; -a (active topics only) leaves it out.
  auto idleDoc = adminJson(node, "statsAll", {"-t", idle});
  REQUIRE(tools::rows(idleDoc, "stats").Size() == 1);
  CHECK(str(tools::rows(idleDoc, "stats")[0], "#OutMsg24Hour") == "NO_CONSUMER");
  CHECK(tools::rows(adminJson(node, "statsAll", {"-a", "-t", idle}), "stats").Size() == 0);

  // Without -t every topic is listed; with -a only the active one of ours remains.
  auto active = adminJson(node, "statsAll", {"-a"});
  bool sawTopic = false, sawIdle = false;
  for (const auto& row : tools::rows(active, "stats").GetArray()) {
    sawTopic |= str(row, "#Topic") == topic;
    sawIdle |= str(row, "#Topic") == idle;
  }
  CHECK(sawTopic);
  CHECK_FALSE(sawIdle);

  auto text = admin(node, "statsAll", {"-t", topic});
  REQUIRE_MESSAGE(text.exitCode == 0, describe(text));
  CHECK(text.out.find("#InMsg24Hour") != std::string::npos);
  CHECK(text.out.find(group) != std::string::npos);
}

// As Java 4.9.8 counts them: SendMessageProcessor counts the topic the message was stored to
// (CommitLog / parseHalfMessageInner moved it), ScheduleMessageService counts the delivered copy on
// its real topic and a get of SCHEDULE_TOPIC_XXXX by SCHEDULE_CONSUMER, the transaction check's
// reads of the half queue count as gets of CID_RMQ_SYS_TRANS (TransactionalMessageBridge).
TEST_CASE("admin broker stats: delayed and half messages count on the topic they are stored to, as Java") {
  DevNode node({.extraBroker = "transactionCheckInterval = 300\ntransactionTimeOut = 1000\n"});  // delay levels of 1 s
  REQUIRE(node.start());
  TestClient c;
  const std::string topic = uniqueName("StatsDelay");
  createTopic(c, node.brokerAddr, topic, 2);
  constexpr int kN = 3;
  for (int i = 0; i < kN; ++i) {
    sendOk(c, node.brokerAddr, {.topic = topic, .body = "later-" + std::to_string(i), .extraProps = {{"DELAY", "1"}}});
  }
  REQUIRE(eventually([&] { return maxOffset(c, node.brokerAddr, topic, 0) == kN; }, std::chrono::seconds(15)));
  sendOk(c, node.brokerAddr, tx::halfSpec(topic, "half-0", "pg_stats"));

  CHECK(eventually([&] { return minuteSum(c, node, "TOPIC_PUT_NUMS", "SCHEDULE_TOPIC_XXXX") == kN; }, kSampleWait));
  CHECK(eventually([&] { return minuteSum(c, node, "TOPIC_PUT_NUMS", tx::kHalf) == 1; }, kSampleWait));
  // Counted once, by the delivery (a count at send time too would make it 2 * kN).
  CHECK(eventually([&] { return minuteSum(c, node, "TOPIC_PUT_NUMS", topic) == kN; }, kSampleWait));
  CHECK(eventually([&] { return minuteSum(c, node, "GROUP_GET_NUMS", "SCHEDULE_TOPIC_XXXX@SCHEDULE_CONSUMER") == kN; },
                   kSampleWait));
  // The unanswered half message is read by check rounds (its renewed copies are not puts, as in Java).
  CHECK(eventually([&] { return minuteSum(c, node, "GROUP_GET_NUMS", tx::kHalf + "@CID_RMQ_SYS_TRANS") >= 1; },
                   kSampleWait));
  // Sends and deliveries both count as broker puts (Java's incBrokerPutNums in both places).
  CHECK(eventually([&] { return minuteSum(c, node, "BROKER_PUT_NUMS", "DefaultCluster") == 2 * kN + 1; }, kSampleWait));
}
