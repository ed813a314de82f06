// Pure helpers of the broker core (stored properties: stored_properties_fixture_test.cpp): born host, header decoding, pull codes,
// heartbeat parsing, name server list.
#include <doctest/doctest.h>

#include "common/request_code.h"
#include "roles/broker/broker_config.h"
#include "roles/broker/processors/client_processor.h"
#include "roles/broker/processors/pull_processor.h"
#include "roles/broker/processors/request_header.h"
#include "roles/broker/delivery/stored_message.h"

using namespace rmq;
using namespace rmq::broker;

TEST_CASE("born host is IPv4 for IPv4 and v4-mapped peers") {
  auto a = peerHostAddress("127.0.0.1:5555");
  CHECK_FALSE(a.v6);
  CHECK(a.toString() == "127.0.0.1:5555");
  auto m = peerHostAddress("[::ffff:10.1.2.3]:77");
  CHECK_FALSE(m.v6);
  CHECK(m.toString() == "10.1.2.3:77");
  CHECK(peerHostAddress("[::1]:9").v6);
}

TEST_CASE("send headers decode from V1 long names and V2 one-letter names") {
  net::RemotingCommand v2;
  v2.code = RequestCode::SEND_MESSAGE_V2;
  for (auto [k, v] : std::initializer_list<std::pair<const char*, const char*>>{
           {"a", "pg"}, {"b", "T"}, {"c", "TBW102"}, {"d", "4"}, {"e", "-1"}, {"f", "0"}, {"g", "123"},
           {"h", "7"}, {"i", "x"}, {"j", "2"}, {"l", "16"}, {"m", "true"}})
    v2.extFields.set(k, v);
  auto h = decodeSendHeader(v2);
  REQUIRE(h.ok());
  CHECK(h->producerGroup == "pg");
  CHECK(h->topic == "T");
  CHECK(h->queueId == -1);
  CHECK(h->flag == 7);
  CHECK(h->reconsumeTimes == 2);
  CHECK(h->maxReconsumeTimes == 16);
  CHECK(h->batch);

  net::RemotingCommand v1;
  v1.code = RequestCode::SEND_MESSAGE;
  v1.extFields.set("producerGroup", "pg");
  v1.extFields.set("topic", "T");
  auto bad = decodeSendHeader(v1);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("defaultTopic") != std::string::npos);
}

TEST_CASE("pull status mapping follows the master table") {
  using store::GetStatus;
  CHECK(pullResponseCode(GetStatus::FOUND, 3) == 0);
  CHECK(pullResponseCode(GetStatus::NO_MATCHED_MESSAGE, 3) == 20);
  CHECK(pullResponseCode(GetStatus::OFFSET_OVERFLOW_ONE, 3) == 19);
  CHECK(pullResponseCode(GetStatus::OFFSET_OVERFLOW_BADLY, 3) == 21);
  CHECK(pullResponseCode(GetStatus::OFFSET_TOO_SMALL, 3) == 21);
  CHECK(pullResponseCode(GetStatus::NO_MESSAGE_IN_QUEUE, 0) == 19);
  CHECK(pullResponseCode(GetStatus::NO_MESSAGE_IN_QUEUE, 2) == 21);
  CHECK(pullResponseCode(GetStatus::NO_MATCHED_LOGIC_QUEUE, 0) == 19);
}

TEST_CASE("heartbeat body parses producers, consumers and subscriptions") {
  auto hb = parseHeartbeat(R"({"clientID":"10.0.0.9@1#2","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",
    "consumeType":"CONSUME_PASSIVELY","groupName":"cg1","messageModel":"CLUSTERING","subscriptionDataSet":[
    {"classFilterMode":false,"codeSet":[2598919],"expressionType":"TAG","subString":"TagA","subVersion":1700000000000,
     "tagsSet":["TagA"],"topic":"TopicTest"}],"unitMode":false}],"producerDataSet":[{"groupName":"pg1"}]})");
  REQUIRE(hb.ok());
  CHECK(hb->clientId == "10.0.0.9@1#2");
  CHECK(hb->producerGroups == std::vector<std::string>{"pg1"});
  REQUIRE(hb->consumers.size() == 1);
  CHECK(hb->consumers[0].consumeFromWhere == "CONSUME_FROM_FIRST_OFFSET");
  REQUIRE(hb->consumers[0].subscriptions.size() == 1);
  auto& s = hb->consumers[0].subscriptions[0];
  CHECK(s.topic == "TopicTest");
  CHECK(s.subVersion == 1700000000000);
  CHECK(s.codeSet == std::vector<int32_t>{2598919});
  CHECK_FALSE(parseHeartbeat("{not json").ok());
}

TEST_CASE("namesrvAddr splits on ';' and trims") {
  BrokerConfig c;
  c.namesrvAddr = " 127.0.0.1:9876; ;10.0.0.1:9876 ";
  CHECK(c.namesrvList() == std::vector<std::string>{"127.0.0.1:9876", "10.0.0.1:9876"});
  c.brokerIP1 = "1.2.3.4";
  c.listenPort = 10911;
  CHECK(c.brokerAddr() == "1.2.3.4:10911");
  CHECK(c.vipAddr() == "1.2.3.4:10909");
}
