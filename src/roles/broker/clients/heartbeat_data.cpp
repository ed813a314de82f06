#include "roles/broker/clients/heartbeat_data.h"

#include "common/json.h"
#include "common/response_code.h"

namespace rmq::broker {

namespace {

std::string str(const rapidjson::Value& obj, const char* key, std::string_view dflt = {}) {
  auto v = rmq::json::getString(obj, key);
  return std::string(v.value_or(dflt));
}

SubscriptionData parseSubscription(const rapidjson::Value& s) {
  SubscriptionData d;
  d.topic = str(s, "topic");
  d.subString = str(s, "subString", "*");
  d.expressionType = str(s, "expressionType", "TAG");
  if (d.expressionType.empty()) d.expressionType = "TAG";
  d.subVersion = rmq::json::getInt64(s, "subVersion").value_or(0);
  d.classFilterMode = rmq::json::getBool(s, "classFilterMode").value_or(false);
  if (auto it = s.FindMember("tagsSet"); it != s.MemberEnd() && it->value.IsArray())
    for (auto& t : it->value.GetArray())
      if (t.IsString()) d.tagsSet.emplace_back(t.GetString(), t.GetStringLength());
  if (auto it = s.FindMember("codeSet"); it != s.MemberEnd() && it->value.IsArray())
    for (auto& c : it->value.GetArray())
      if (c.IsInt()) d.codeSet.push_back(c.GetInt());
  return d;
}

}  // namespace

Result<HeartbeatData> parseHeartbeat(std::string_view body) {
  rapidjson::Document doc;
  if (auto r = rmq::json::parse(body, doc); !r) return makeError(ResponseCode::SYSTEM_ERROR, "bad heartbeat body: " + r.error().message);
  if (!doc.IsObject()) return makeError(ResponseCode::SYSTEM_ERROR, "bad heartbeat body: not an object");
  HeartbeatData hb;
  hb.clientId = str(doc, "clientID");
  if (auto it = doc.FindMember("producerDataSet"); it != doc.MemberEnd() && it->value.IsArray())
    for (auto& p : it->value.GetArray())
      if (p.IsObject()) hb.producerGroups.push_back(str(p, "groupName"));
  if (auto it = doc.FindMember("consumerDataSet"); it != doc.MemberEnd() && it->value.IsArray()) {
    for (auto& c : it->value.GetArray()) {
      if (!c.IsObject()) continue;
      ConsumerRegistration reg;
      reg.group = str(c, "groupName");
      reg.consumeType = str(c, "consumeType", "CONSUME_PASSIVELY");
      reg.messageModel = str(c, "messageModel", "CLUSTERING");
      reg.consumeFromWhere = str(c, "consumeFromWhere", "CONSUME_FROM_LAST_OFFSET");
      if (auto s = c.FindMember("subscriptionDataSet"); s != c.MemberEnd() && s->value.IsArray())
        for (auto& sub : s->value.GetArray())
          if (sub.IsObject()) reg.subscriptions.push_back(parseSubscription(sub));
      hb.consumers.push_back(std::move(reg));
    }
  }
  return hb;
}

}  // namespace rmq::broker
