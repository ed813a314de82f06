#include "client/consumer/running_info.h"

#include "common/json.h"

namespace rmq::client {

void addInstanceProperties(RunningInfoParts& parts, const ClientInstance& instance, bool push) {
  std::string ns;
  for (const auto& addr : instance.nameServers()) ns += addr + ";";
  parts.properties.emplace_back("PROP_NAMESERVER_ADDR", ns);
  parts.properties.emplace_back("PROP_CONSUME_TYPE", push ? "CONSUME_PASSIVELY" : "CONSUME_ACTIVELY");
  parts.properties.emplace_back("PROP_CLIENT_VERSION", "V4_9_7");
}

std::string encodeRunningInfo(const RunningInfoParts& parts) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("jstack");
  w.String(parts.jstack.c_str(), static_cast<rapidjson::SizeType>(parts.jstack.size()));
  w.Key("mqTable");
  w.RawValue(parts.mqTableJson.c_str(), parts.mqTableJson.size(), rapidjson::kObjectType);
  w.Key("properties");
  w.StartObject();
  for (const auto& [k, v] : parts.properties) {
    w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
  w.Key("statusTable");
  w.RawValue(parts.statusTableJson.c_str(), parts.statusTableJson.size(), rapidjson::kObjectType);
  w.Key("subscriptionSet");
  w.StartArray();
  for (const auto& s : parts.subscriptionJsons) w.RawValue(s.c_str(), s.size(), rapidjson::kObjectType);
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

void writeProcessQueueInfo(json::Writer& w, const ProcessQueue& pq, int64_t commitOffset) {
  const CachedMessages cached = pq.cached();
  const OrderlyQueue::Consuming consuming = pq.orderly.consuming();
  w.StartObject();
  w.Key("cachedMsgCount"); w.Int64(cached.count);
  w.Key("cachedMsgMaxOffset"); w.Int64(cached.maxOffset);
  w.Key("cachedMsgMinOffset"); w.Int64(cached.minOffset);
  w.Key("cachedMsgSizeInMiB"); w.Int64(cached.sizeInMiB);
  w.Key("commitOffset"); w.Int64(commitOffset);
  w.Key("droped"); w.Bool(pq.dropped);
  w.Key("lastConsumeTimestamp"); w.Int64(pq.lastConsumeTimestamp);
  w.Key("lastLockTimestamp"); w.Int64(pq.lastLockTimestamp);
  w.Key("lastPullTimestamp"); w.Int64(pq.lastPullTimestamp);
  w.Key("locked"); w.Bool(pq.locked);
  w.Key("transactionMsgCount"); w.Int64(consuming.count);
  w.Key("transactionMsgMaxOffset"); w.Int64(consuming.maxOffset);
  w.Key("transactionMsgMinOffset"); w.Int64(consuming.minOffset);
  w.Key("tryUnlockTimes"); w.Int64(pq.tryUnlockTimes);
  w.EndObject();
}

}  // namespace rmq::client
