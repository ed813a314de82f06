// JSON shapes of TopicConfigSerializeWrapper (PROTOCOL.md §3.2, §6.8).
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/metadata/topic_table_reader.h"

namespace rmq::broker {

namespace {

void writeTopicConfig(json::Writer& w, const TopicConfig& c) {
  w.beginObject()
      .key("order").value(c.order)
      .key("perm").value(c.perm)
      .key("readQueueNums").value(c.readQueueNums)
      .key("topicFilterType").value(topicFilterTypeName(c.topicFilterType))
      .key("topicName").value(c.topicName)
      .key("topicSysFlag").value(c.topicSysFlag)
      .key("writeQueueNums").value(c.writeQueueNums);
  if (!c.attributes.empty()) {  // 5.x's field; absent for 4.x topics, as Java 4.9 writes them
    w.key("attributes").beginObject();
    for (const auto& [k, v] : c.attributes) w.key(k).value(v);
    w.endObject();
  }
  w.endObject();
}

}  // namespace

std::string TopicConfigManager::encode(bool pretty) const {
  auto configs = all();
  DataVersion v = dataVersion();
  json::Writer w(pretty);
  size_t perTopic = 2 * 32 + (pretty ? 200 : 150);  // name twice + fields (pretty adds tabs)
  w.reserve(256 + configs.size() * perTopic);
  w.beginObject();
  w.key("dataVersion").beginObject().key("counter").value(v.counter).key("timestamp").value(v.timestamp).endObject();
  w.key("topicConfigTable").beginObject();
  for (auto& c : configs) {
    w.key(c.topicName);
    writeTopicConfig(w, c);
  }
  w.endObject();
  w.endObject();
  return w.take();
}

Result<std::pair<DataVersion, std::vector<TopicConfig>>> TopicConfigManager::decode(std::string_view text) {
  if (auto fast = readTopicTableFast(text)) return std::move(*fast);
  auto doc = json::parse(text);
  if (!doc) return doc.error();
  const rapidjson::Value& root = *doc;
  if (!root.IsObject()) return makeError(1, "topic config wrapper is not an object");
  std::pair<DataVersion, std::vector<TopicConfig>> out;
  if (auto dv = root.FindMember("dataVersion"); dv != root.MemberEnd()) {
    out.first.counter = json::getInt(dv->value, "counter");
    out.first.timestamp = json::getInt(dv->value, "timestamp");
  }
  auto table = root.FindMember("topicConfigTable");
  if (table == root.MemberEnd() || !table->value.IsObject()) return out;
  for (auto& m : table->value.GetObject()) {
    const auto& v = m.value;
    if (!v.IsObject()) return makeError(1, "topic config entry is not an object");
    TopicConfig c;
    c.topicName = json::getString(v, "topicName", m.name.GetString());
    c.readQueueNums = static_cast<int32_t>(json::getInt(v, "readQueueNums", 16));
    c.writeQueueNums = static_cast<int32_t>(json::getInt(v, "writeQueueNums", 16));
    c.perm = static_cast<int32_t>(json::getInt(v, "perm", 6));
    parseTopicFilterType(json::getString(v, "topicFilterType", "SINGLE_TAG"), c.topicFilterType);
    c.topicSysFlag = static_cast<int32_t>(json::getInt(v, "topicSysFlag", 0));
    c.order = json::getBool(v, "order", false);
    if (auto a = v.FindMember("attributes"); a != v.MemberEnd() && a->value.IsObject()) {
      for (auto& kv : a->value.GetObject())
        if (kv.value.IsString()) c.attributes[kv.name.GetString()] = kv.value.GetString();
    }
    out.second.push_back(std::move(c));
  }
  return out;
}

}  // namespace rmq::broker
