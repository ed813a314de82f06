// The broker's REGISTER_BROKER body: byte-identical to Java 4.9's without a failover epoch, and
// carrying dataVersion.stateVersion only when one is set; the compressed form (compressedRegister)
// against the name server's decoder and a body made by Java 4.9.8.
#include <doctest/doctest.h>

#include <map>

#include "common/json.h"
#include "common/message_codec.h"
#include "roles/broker/registration/register_body.h"
#include "roles/namesrv/register_body.h"

using namespace rmq;
using namespace rmq::broker;

namespace {

std::vector<TopicConfig> oneTopic() {
  TopicConfig t;
  t.topicName = "T1";
  t.readQueueNums = 4;
  t.writeQueueNums = 2;
  return {t};
}

}  // namespace

TEST_CASE("register body: no epoch = Java 4.9's exact JSON, no stateVersion") {
  auto body = encodeRegisterBody(DataVersion{1700000000000, 7}, 0, oneTopic(), perm::READ | perm::WRITE);
  CHECK(body ==
        "{\"filterServerList\":[],\"topicConfigSerializeWrapper\":{\"dataVersion\":{\"counter\":7,"
        "\"timestamp\":1700000000000},\"topicConfigTable\":{\"T1\":{\"order\":false,\"perm\":6,"
        "\"readQueueNums\":4,\"topicFilterType\":\"SINGLE_TAG\",\"topicName\":\"T1\",\"topicSysFlag\":0,"
        "\"writeQueueNums\":2}}}}");
  CHECK(body.find("stateVersion") == std::string::npos);
}

TEST_CASE("register body: an epoch is dataVersion.stateVersion, in fastjson's key order") {
  auto body = encodeRegisterBody(DataVersion{1700000000000, 7}, 42, oneTopic(), perm::READ | perm::WRITE);
  CHECK(body.find("\"dataVersion\":{\"counter\":7,\"stateVersion\":42,\"timestamp\":1700000000000}") !=
        std::string::npos);
  rapidjson::Document doc;
  REQUIRE(json::parse(body, doc));
  const auto& dv = doc["topicConfigSerializeWrapper"]["dataVersion"];
  CHECK(json::getInt64(dv, "stateVersion") == 42);
  CHECK(json::getInt64(dv, "counter") == 7);
  // Everything else is as without an epoch.
  auto plain = encodeRegisterBody(DataVersion{1700000000000, 7}, 0, oneTopic(), perm::READ | perm::WRITE);
  CHECK(body.size() == plain.size() + std::string(",\"stateVersion\":42").size());
}

TEST_CASE("register body: a read-only broker announces its permission on every topic") {
  auto body = encodeRegisterBody(DataVersion{1, 1}, 3, oneTopic(), perm::READ);
  CHECK(body.find("\"perm\":4") != std::string::npos);
}

// ---- compressedRegister: Java's RegisterBrokerBody.encode(true) layout ----

namespace {

std::string unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

// Made by Apache RocketMQ 4.9.8's RegisterBrokerBody.encode(true) (test/reference/register/java-4.9.8.txt):
// dataVersion {counter 42, timestamp 1700000000123}; TopicA 8/4 perm 6; %RETRY%GroupB 1/1 perm 6;
// OrderC 16/16 perm 2 MULTI_TAG (order, sysFlag 1: not carried); filter server 127.0.0.1:10999.
// Java's UtilAll.crc32 of these bytes: 2096581367.
constexpr std::string_view kJavaCompressedHex =
    "78da636060d0a8564ace2fcd2b492d52b23231d2512ac9cc4d2d2e49cc2d50b232343780024323e35a060606662096f02f4a492d"
    "7256303403212305df509f10cff8104777a09c9c6a906b4850a4aa7b517e6981938221109a29047bfab9fbb842558887e41764263b"
    "2a582898a04b09472b191a99eb1900a1a195a181a5a5a5522c003b322583";

std::vector<TopicConfig> threeTopics() {
  std::vector<TopicConfig> v(3);
  v[0].topicName = "%RETRY%GroupB"; v[0].readQueueNums = v[0].writeQueueNums = 1;
  v[1].topicName = "OrderC"; v[1].readQueueNums = v[1].writeQueueNums = 16; v[1].perm = perm::WRITE;
  v[1].topicFilterType = TopicFilterType::MultiTag; v[1].order = true; v[1].topicSysFlag = 1;
  v[2].topicName = "TopicA"; v[2].readQueueNums = 8; v[2].writeQueueNums = 4;
  return v;
}

}  // namespace

TEST_CASE("compressed register body: the name server reads a Java 4.9.8 vector") {
  std::string java = unhex(kJavaCompressedHex);
  CHECK(namesrv::rocketmqCrc32(java) == 2096581367);
  auto body = namesrv::decodeRegisterBrokerBody(java, true);
  REQUIRE(body.ok());
  CHECK(body->dataVersion.counter == 42);
  CHECK(body->dataVersion.timestamp == 1700000000123);
  CHECK_FALSE(body->dataVersion.stateVersion.has_value());
  REQUIRE(body->topics.size() == 3);
  std::map<std::string, namesrv::TopicConfigEntry> byName;
  for (auto& t : body->topics) byName[t.topicName] = t;
  CHECK(byName["TopicA"].readQueueNums == 8);
  CHECK(byName["TopicA"].writeQueueNums == 4);
  CHECK(byName["OrderC"].perm == 2);
  CHECK(byName["OrderC"].topicSysFlag == 0);  // not in Java's compressed form
  CHECK(byName["%RETRY%GroupB"].readQueueNums == 1);
  REQUIRE(body->filterServerList.has_value());
  CHECK(*body->filterServerList == std::vector<std::string>{"127.0.0.1:10999"});
}

TEST_CASE("compressed register body: Java's layout, zlib level 3, and a round trip through the name server") {
  auto z = encodeRegisterBodyCompressed(DataVersion{1700000000123, 42}, 0, threeTopics(), perm::READ | perm::WRITE);
  CHECK(static_cast<unsigned char>(z[0]) == 0x78);
  // Levels 2-5 write the header 78 5e (Java's level 9: 78 da); an inflater ignores the hint.
  CHECK(static_cast<unsigned char>(z[1]) == 0x5e);
  auto raw = zlibInflate(z);
  REQUIRE(raw.ok());
  // The same records as Java's (its order is ConcurrentHashMap's, ours the table's sorted order).
  std::string expected = std::string("\0\0\0\x28", 4) + "{\"counter\":42,\"timestamp\":1700000000123}" +
                         std::string("\0\0\0\x03", 4) + std::string("\0\0\0\x1e", 4) + "%RETRY%GroupB 1 1 6 SINGLE_TAG" +
                         std::string("\0\0\0\x18", 4) + "OrderC 16 16 2 MULTI_TAG" + std::string("\0\0\0\x17", 4) +
                         "TopicA 8 4 6 SINGLE_TAG" + std::string("\0\0\0\x02", 4) + "[]";
  CHECK(*raw == expected);
  // Same bytes as Java's, records reordered: Java's inflated vector holds exactly these records.
  auto java = zlibInflate(unhex(kJavaCompressedHex));
  REQUIRE(java.ok());
  for (std::string_view rec : {"%RETRY%GroupB 1 1 6 SINGLE_TAG", "OrderC 16 16 2 MULTI_TAG", "TopicA 8 4 6 SINGLE_TAG"})
    CHECK(java->find(rec) != std::string::npos);

  auto back = namesrv::decodeRegisterBrokerBody(z, true);
  REQUIRE(back.ok());
  CHECK(back->dataVersion.counter == 42);
  REQUIRE(back->topics.size() == 3);
  CHECK(back->topics[2].topicName == "TopicA");
  CHECK(back->topics[2].writeQueueNums == 4);
  CHECK(back->filterServerList->empty());
}

TEST_CASE("compressed register body: epoch as stateVersion, broker perm, 100,000 topics under a frame") {
  auto one = encodeRegisterBodyCompressed(DataVersion{5, 6}, 9, threeTopics(), perm::READ);
  auto back = namesrv::decodeRegisterBrokerBody(one, true);
  REQUIRE(back.ok());
  CHECK(back->dataVersion.stateVersion == 9);
  for (auto& t : back->topics) CHECK(t.perm == perm::READ);

  std::vector<TopicConfig> many(100000);
  for (size_t i = 0; i < many.size(); ++i) many[i].topicName = "BenchTopicOfOneBroker_" + std::to_string(100000 + i);
  auto plain = encodeRegisterBody(DataVersion{1, 2}, 0, many, perm::READ | perm::WRITE);
  auto z = encodeRegisterBodyCompressed(DataVersion{1, 2}, 0, many, perm::READ | perm::WRITE);
  CHECK(plain.size() > 16u * 1024 * 1024);  // what made registration fail at ~85k topics
  CHECK(z.size() < 2u * 1024 * 1024);
  auto decoded = namesrv::decodeRegisterBrokerBody(z, true);
  REQUIRE(decoded.ok());
  CHECK(decoded->topics.size() == 100000);
}

TEST_CASE("data version JSON: the QUERY_DATA_VERSION body and its comparison") {
  CHECK(encodeDataVersion(DataVersion{1700000000000, 7}, 0) == "{\"counter\":7,\"timestamp\":1700000000000}");
  CHECK(encodeDataVersion(DataVersion{1, 7}, 3) == "{\"counter\":7,\"stateVersion\":3,\"timestamp\":1}");
  CHECK(sameDataVersionJson("{\"counter\":7,\"timestamp\":1}", "{\"timestamp\":1, \"counter\":7}"));
  CHECK_FALSE(sameDataVersionJson("{\"counter\":7,\"timestamp\":1}", "{\"counter\":8,\"timestamp\":1}"));
  CHECK_FALSE(sameDataVersionJson("{\"counter\":7,\"timestamp\":1}", "{\"counter\":7,\"stateVersion\":2,\"timestamp\":1}"));
  CHECK_FALSE(sameDataVersionJson("{\"counter\":7,\"timestamp\":1}", "not json"));
}
