// The properties string rmqnode stores, over the wire, against what Apache RocketMQ 4.9.8 stored
// for the same sends (test/reference/props/compare.sh, README there): HashMap order, no trailing
// separator, WAIT dropped from plain sends but kept in batch headers and delayed messages.
#include <doctest/doctest.h>

#include "broker_calls.h"
#include "client/request_headers.h"
#include "common/message_codec.h"
#include "common/response_code.h"
#include "dev_node.h"

using namespace rmq;
using namespace rmq::test;

namespace {
constexpr const char* kUniq = "7F0000010001000000000000000000AB";

// The stored string of a pulled record (decodeProperties keeps the stored order).
std::string storedString(const MessageExt& m) { return encodeProperties(m.properties); }
}  // namespace

TEST_CASE("broker stored properties: plain, batch and delayed sends store what Java 4.9.8 stores") {
  DevNode node;
  REQUIRE(node.start());
  TestClient c;
  auto addr = node.brokerAddr;
  createTopic(c, addr, "PropsT", 4);

  // As the Java client sent the compare.sh "plain" message (its own HashMap order), plus a
  // trailing separator: Java 4.9.8 stored zeta, color, KEYS, UNIQ_KEY, CLUSTER, TAGS.
  sendOk(c, addr, {.topic = "PropsT", .body = "hello-plain", .tags = "TagA", .keys = "key-1 key-2", .queueId = 0,
                   .extraProps = {{"zeta", "z"}, {"color", "red"}, {"UNIQ_KEY", kUniq}}});
  REQUIRE(dispatched(c, addr, "PropsT", 0, 1));
  auto plain = pullMessages(c, addr, {.topic = "PropsT", .queueId = 0});
  REQUIRE(plain.size() == 1);
  CHECK(storedString(plain[0]) == std::string("zeta\x01z\x02" "color\x01red\x02KEYS\x01key-1 key-2\x02UNIQ_KEY\x01") +
                                      kUniq + "\x02" "CLUSTER\x01" "DefaultCluster\x02TAGS\x01TagA");

  // A batch whose header carries WAIT=true (the Java client's MessageBatch): every item keeps its
  // own string, then CLUSTER and the header's WAIT.
  std::vector<Message> items(2);
  for (int i = 0; i < 2; ++i) {
    items[i].topic = "PropsT";
    items[i].body = "hello-batch-" + std::to_string(i);
    items[i].properties = {{"KEYS", "batch-" + std::to_string(i)}, {"UNIQ_KEY", kUniq}, {"WAIT", "true"}, {"TAGS", "TagB"}};
  }
  client::SendMessageHeader h;
  h.producerGroup = "pg";
  h.topic = "PropsT";
  h.queueId = 1;
  h.bornTimestamp = 1700000000000;
  h.batch = true;
  h.properties = std::string("WAIT\x01true");
  auto batch = c.call(addr, client::makeSendRequest(h, encodeBatch(items)));
  REQUIRE(batch.ok());
  CHECK(batch->code == ResponseCode::SUCCESS);
  REQUIRE(dispatched(c, addr, "PropsT", 1, 2));
  auto stored = pullMessages(c, addr, {.topic = "PropsT", .queueId = 1});
  REQUIRE(stored.size() == 2);
  for (int i = 0; i < 2; ++i)
    CHECK(storedString(stored[i]) == encodeProperties(items[i].properties) + "\x02" "CLUSTER\x01" "DefaultCluster\x02WAIT\x01true");

  // 14 user properties: 19 keys before WAIT is removed, so Java's map has grown to 32 buckets.
  SendSpec many{.topic = "PropsT", .body = "hello-many", .tags = "TagD", .keys = "many-1", .queueId = 3};
  for (int i = 0; i < 14; ++i) many.extraProps.emplace_back("user" + std::to_string(i), "v" + std::to_string(i));
  many.extraProps.emplace_back("UNIQ_KEY", kUniq);
  sendOk(c, addr, many);
  REQUIRE(dispatched(c, addr, "PropsT", 3, 1));
  auto manyStored = pullMessages(c, addr, {.topic = "PropsT", .queueId = 3});
  REQUIRE(manyStored.size() == 1);
  std::vector<std::string> javaOrder;  // test/reference/props/java-4.9.8/java.records.txt
  for (auto& kv : manyStored[0].properties) javaOrder.push_back(kv.first);
  CHECK(javaOrder == std::vector<std::string>{"user1", "user11", "user2", "user10", "user0", "user13", "user12", "user9",
                                              "user7", "user8", "user5", "user6", "user3", "user4", "KEYS", "UNIQ_KEY",
                                              "CLUSTER", "TAGS"});

  // Delay level 1: parked, then delivered with WAIT back in, in Java's order.
  sendOk(c, addr, {.topic = "PropsT", .body = "hello-delayed", .tags = "TagC", .keys = "delayed-1", .queueId = 2,
                   .extraProps = {{"UNIQ_KEY", kUniq}, {"DELAY", "1"}}});
  REQUIRE(dispatched(c, addr, "PropsT", 2, 1));  // after the 1 s delay
  auto delayed = pullMessages(c, addr, {.topic = "PropsT", .queueId = 2});
  REQUIRE(delayed.size() == 1);
  CHECK(storedString(delayed[0]) == std::string("REAL_TOPIC\x01PropsT\x02KEYS\x01" "delayed-1\x02UNIQ_KEY\x01") + kUniq +
                                        "\x02" "CLUSTER\x01" "DefaultCluster\x02" "DELAY\x01" "1\x02WAIT\x01true\x02TAGS\x01TagC\x02REAL_QID\x01" "2");
}
