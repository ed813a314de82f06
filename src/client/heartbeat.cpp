#include "client/heartbeat.h"

#include <atomic>
#include <chrono>

#include "common/json.h"

namespace rmq::client {

namespace {

int64_t nextSubVersion() {
  static std::atomic<int64_t> last{0};
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch()).count();
  int64_t prev = last.load();
  while (true) {
    int64_t v = now > prev ? now : prev + 1;
    if (last.compare_exchange_weak(prev, v)) return v;
  }
}

void writeSubscription(json::Writer& w, const SubscriptionData& s) {
  w.StartObject();
  w.Key("classFilterMode"); w.Bool(false);
  w.Key("codeSet"); w.StartArray(); for (int32_t c : s.codes) w.Int(c); w.EndArray();
  w.Key("expressionType"); w.String(s.expressionType.c_str());
  w.Key("subString"); w.String(s.subString.c_str(), static_cast<rapidjson::SizeType>(s.subString.size()));
  w.Key("subVersion"); w.Int64(s.subVersion);
  w.Key("tagsSet"); w.StartArray();
  for (const auto& t : s.tags) w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
  w.EndArray();
  w.Key("topic"); w.String(s.topic.c_str(), static_cast<rapidjson::SizeType>(s.topic.size()));
  w.EndObject();
}

}  // namespace

SubscriptionData makeSubscriptionData(const std::string& topic, const filter::Filter& f) {
  SubscriptionData s;
  s.topic = topic;
  s.expressionType = filter::expressionTypeName(f.type());
  if (f.type() == filter::ExpressionType::Tag) {
    s.subString = f.tags().subString;
    s.tags = f.tags().tags;
    s.codes = f.tags().codes;
  } else {
    s.subString = f.expression();
  }
  s.subVersion = nextSubVersion();
  return s;
}

std::string encodeSubscriptionData(const SubscriptionData& s) {
  json::Buffer buf;
  json::Writer w(buf);
  writeSubscription(w, s);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string encodeHeartbeat(const std::string& clientId, const std::vector<std::string>& producerGroups,
                            const std::vector<ConsumerData>& consumers) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("clientID"); w.String(clientId.c_str());
  w.Key("consumerDataSet"); w.StartArray();
  for (const auto& c : consumers) {
    w.StartObject();
    w.Key("consumeFromWhere"); w.String(consumeFromWhereName(c.consumeFromWhere));
    w.Key("consumeType"); w.String(c.pushConsumer ? "CONSUME_PASSIVELY" : "CONSUME_ACTIVELY");
    w.Key("groupName"); w.String(c.groupName.c_str());
    w.Key("messageModel"); w.String(messageModelName(c.messageModel));
    w.Key("subscriptionDataSet"); w.StartArray();
    for (const auto& s : c.subscriptions) writeSubscription(w, s);
    w.EndArray();
    w.Key("unitMode"); w.Bool(false);
    w.EndObject();
  }
  w.EndArray();
  w.Key("producerDataSet"); w.StartArray();
  for (const auto& g : producerGroups) { w.StartObject(); w.Key("groupName"); w.String(g.c_str()); w.EndObject(); }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace rmq::client
