#include "common/subscription_group.h"

#include <type_traits>

#include "common/json.h"
#include "common/json_fields.h"

namespace rmq {

namespace {

// One "key":value of the compact form (no spaces, as fastjson writes it).
template <class V>
void appendField(std::string& out, std::string_view key, const V& value) {
  if (out.size() > 1) out.push_back(',');
  json::appendQuoted(out, key);
  out.push_back(':');
  if constexpr (std::is_same_v<V, bool>) out += value ? "true" : "false";
  else if constexpr (std::is_same_v<V, std::string>) json::appendQuoted(out, value);
  else out += std::to_string(value);
}

}  // namespace

std::string SubscriptionGroupConfig::toJson() const {
  std::string out = "{";
  forEachField([&out](std::string_view key, const auto& value) { appendField(out, key, value); });
  out.push_back('}');
  return out;
}

SubscriptionGroupConfig SubscriptionGroupConfig::fromJsonValue(const rapidjson::Value& v, std::string_view nameFallback) {
  SubscriptionGroupConfig g;
  g.groupName = json::stringOr(v, "groupName", nameFallback);
  g.consumeEnable = json::boolOr(v, "consumeEnable", true);
  g.consumeFromMinEnable = json::boolOr(v, "consumeFromMinEnable", true);
  g.consumeBroadcastEnable = json::boolOr(v, "consumeBroadcastEnable", true);
  g.retryQueueNums = static_cast<int32_t>(json::intOr(v, "retryQueueNums", 1));
  g.retryMaxTimes = static_cast<int32_t>(json::intOr(v, "retryMaxTimes", 16));
  g.brokerId = json::intOr(v, "brokerId", 0);
  g.whichBrokerWhenConsumeSlowly = json::intOr(v, "whichBrokerWhenConsumeSlowly", 1);
  g.notifyConsumerIdsChangedEnable = json::boolOr(v, "notifyConsumerIdsChangedEnable", true);
  g.consumeMessageOrderly = json::boolOr(v, "consumeMessageOrderly", false);
  return g;
}

Result<SubscriptionGroupConfig> SubscriptionGroupConfig::fromJson(std::string_view text) {
  rapidjson::Document doc;
  if (auto r = json::parse(text, doc); !r) return r.error();
  if (!doc.IsObject()) return makeError(1, "subscription group config is not an object");
  auto g = fromJsonValue(doc);
  if (g.groupName.empty()) return makeError(1, "subscription group config without groupName");
  return g;
}

}  // namespace rmq
