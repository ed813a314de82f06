#pragma once
// SubscriptionGroupConfig: a consumer group's settings, as Java's SubscriptionGroupConfig (4.9.x).
// One type for both ends: the broker keeps them (subscriptionGroup.json, PROTOCOL.md §6.8) and
// reads them from UPDATE_AND_CREATE_SUBSCRIPTIONGROUP bodies; the admin client writes those bodies.
// JSON in fastjson's shape: keys in alphabetical order.
#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace rmq {

struct SubscriptionGroupConfig {
  std::string groupName;
  bool consumeEnable = true;
  bool consumeFromMinEnable = true;
  bool consumeBroadcastEnable = true;
  int32_t retryQueueNums = 1;
  int32_t retryMaxTimes = 16;
  int64_t brokerId = 0;
  int64_t whichBrokerWhenConsumeSlowly = 1;
  bool notifyConsumerIdsChangedEnable = true;
  // 5.x's field: POP consumers of the group get each queue in order (src/roles/broker/pop). Written
  // only when true, so a 4.x group's JSON stays byte-identical to Java 4.9's.
  bool consumeMessageOrderly = false;
  bool operator==(const SubscriptionGroupConfig&) const = default;

  // f(key, value) per field in fastjson's key order; value is a bool, int32_t, int64_t or std::string.
  // For writers of other shapes (the broker's pretty config files).
  template <class F>
  void forEachField(F&& f) const {
    f("brokerId", brokerId);
    f("consumeBroadcastEnable", consumeBroadcastEnable);
    f("consumeEnable", consumeEnable);
    f("consumeFromMinEnable", consumeFromMinEnable);
    if (consumeMessageOrderly) f("consumeMessageOrderly", consumeMessageOrderly);
    f("groupName", groupName);
    f("notifyConsumerIdsChangedEnable", notifyConsumerIdsChangedEnable);
    f("retryMaxTimes", retryMaxTimes);
    f("retryQueueNums", retryQueueNums);
    f("whichBrokerWhenConsumeSlowly", whichBrokerWhenConsumeSlowly);
  }

  std::string toJson() const;  // compact fastjson form (sorted keys)
  // A body or file entry; an error when it is no JSON object or names no group.
  static Result<SubscriptionGroupConfig> fromJson(std::string_view json);
  // One parsed JSON object: a missing or mistyped field keeps Java's default, a missing groupName
  // is `nameFallback` (the table key of subscriptionGroup.json).
  static SubscriptionGroupConfig fromJsonValue(const rapidjson::Value& v, std::string_view nameFallback = {});
};

}  // namespace rmq
