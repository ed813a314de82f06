// An acknowledged send that auto-created its topic survives kill -9 (issue 25 §1.4): Java writes
// topics.json synchronously in createTopicInSendMessageMethod; rmqnode's write is coalesced in the
// background, so at start the broker recreates the config of a topic that has consume queues but
// no entry in topics.json (TopicConfigManager::recreateFromQueues).
#include <doctest/doctest.h>

#include "broker_calls.h"
#include "broker_requests.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;

TEST_CASE("auto-created topic: acknowledged, kill -9 before the coalesced topics.json write, readable after restart") {
  DevNode node;
  REQUIRE_MESSAGE(node.start(), node.proc.stderrText());
  TestClient c;
  // An admin creation just before: its write makes the next one wait the coalescing gap, so the
  // auto-created topic below is acknowledged while topics.json does not have it yet.
  REQUIRE(invoke(c, node.brokerAddr, createTopicRequest(uniqueName("Admin"), 1)).code == ResponseCode::SUCCESS);
  const std::string topic = uniqueName("AutoDurable");
  auto sent = invoke(c, node.brokerAddr, sendRequest({.topic = topic, .body = "kept", .keys = "k1", .queueId = 1}));
  REQUIRE(sent.code == ResponseCode::SUCCESS);
  node.proc.kill();  // kill -9 right after the SEND_OK
  const bool fileHadIt = node.proc.readFile("store/config/topics.json").find(topic) != std::string::npos;
  MESSAGE("topics.json had the topic at the kill: " << fileHadIt);

  REQUIRE_MESSAGE(node.restart(), node.proc.stderrText());
  auto all = parseBody(invoke(c, node.brokerAddr, request(RequestCode::GET_ALL_TOPIC_CONFIG, {})));
  REQUIRE(all["topicConfigTable"].HasMember(topic.c_str()));
  const auto& cfg = all["topicConfigTable"][topic.c_str()];
  CHECK(cfg["writeQueueNums"].GetInt() == 4);  // what the send created: min(producer's 4, TBW102's 8)
  CHECK(cfg["readQueueNums"].GetInt() == 4);
  CHECK(cfg["perm"].GetInt() == 6);
  auto msgs = pullMessages(c, node.brokerAddr, {.topic = topic, .queueId = 1});
  REQUIRE(msgs.size() == 1);
  CHECK(msgs[0].keys() == "k1");
  // Persisted at start: in the file now.
  CHECK(node.proc.readFile("store/config/topics.json").find(topic) != std::string::npos);
  if (!fileHadIt) CHECK(node.brokerLog().find("recreated 1 topic config(s)") != std::string::npos);
}
