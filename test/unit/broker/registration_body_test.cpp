// The broker's REGISTER_BROKER body: byte-identical to Java 4.9's without a failover epoch, and
// carrying dataVersion.stateVersion only when one is set.
#include <doctest/doctest.h>

#include "common/json.h"
#include "roles/broker/registration/register_body.h"

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
