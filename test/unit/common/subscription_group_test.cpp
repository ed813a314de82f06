// SubscriptionGroupConfig (common/subscription_group.h): the one type the broker stores and the
// admin client sends; its JSON is fastjson's (sorted keys), and what the broker reads back.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/subscription_group.h"

using rmq::SubscriptionGroupConfig;

TEST_CASE("subscription group: compact JSON in fastjson's key order, escaped, read back equal") {
  SubscriptionGroupConfig g;
  g.groupName = "cg \"1\"";
  g.consumeBroadcastEnable = false;
  g.retryQueueNums = 3;
  g.brokerId = 2;
  CHECK(g.toJson() ==
        "{\"brokerId\":2,\"consumeBroadcastEnable\":false,\"consumeEnable\":true,\"consumeFromMinEnable\":true,"
        "\"groupName\":\"cg \\\"1\\\"\",\"notifyConsumerIdsChangedEnable\":true,\"retryMaxTimes\":16,"
        "\"retryQueueNums\":3,\"whichBrokerWhenConsumeSlowly\":1}");
  auto back = SubscriptionGroupConfig::fromJson(g.toJson());
  REQUIRE(back);
  CHECK(*back == g);

  std::vector<std::string> keys;
  g.forEachField([&keys](std::string_view key, const auto&) { keys.emplace_back(key); });
  CHECK(keys.size() == 9);
  CHECK(std::is_sorted(keys.begin(), keys.end()));
}

TEST_CASE("subscription group: Java's defaults for missing or mistyped fields, the table key for a missing name") {
  rapidjson::Document doc;
  REQUIRE(rmq::json::parse("{\"retryMaxTimes\":\"5\",\"consumeEnable\":\"false\",\"brokerId\":[1]}", doc));
  auto g = SubscriptionGroupConfig::fromJsonValue(doc, "from-key");
  CHECK(g.groupName == "from-key");
  CHECK(g.retryMaxTimes == 5);     // a numeric string, as fastjson takes it
  CHECK_FALSE(g.consumeEnable);    // "false" is not "true"
  CHECK(g.brokerId == 0);          // an array is no number: the default
  CHECK(g.retryQueueNums == 1);
  CHECK_FALSE(SubscriptionGroupConfig::fromJson("[]"));
  CHECK_FALSE(SubscriptionGroupConfig::fromJson("{\"retryMaxTimes\":3}"));
}

TEST_CASE("subscription group: 5.x's consumeMessageOrderly is written only when true (4.x JSON unchanged) and read back") {
  SubscriptionGroupConfig g;
  g.groupName = "fifo";
  CHECK(g.toJson().find("consumeMessageOrderly") == std::string::npos);
  g.consumeMessageOrderly = true;
  std::string json = g.toJson();
  CHECK(json.find("\"consumeFromMinEnable\":true,\"consumeMessageOrderly\":true,\"groupName\"") != std::string::npos);
  auto back = SubscriptionGroupConfig::fromJson(json);
  REQUIRE(back);
  CHECK(back->consumeMessageOrderly);
  CHECK(*back == g);
}
