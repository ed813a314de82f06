#include "client/route.h"

#include <algorithm>

#include "common/json.h"
#include "common/response_code.h"

namespace rmq::client {

namespace {

Error badBody(std::string_view what) {
  return makeError(ResponseCode::SYSTEM_ERROR, "malformed " + std::string(what) + " body");
}

int32_t intOr(const rapidjson::Value& v, const char* key, int32_t dflt = 0) {
  auto x = json::getInt64(v, key);
  return x ? static_cast<int32_t>(*x) : dflt;
}

std::string strOr(const rapidjson::Value& v, const char* key) {
  auto x = json::getString(v, key);
  return x ? std::string(*x) : std::string();
}

BrokerData parseBrokerData(const rapidjson::Value& v) {
  BrokerData b;
  b.cluster = strOr(v, "cluster");
  b.brokerName = strOr(v, "brokerName");
  if (v.HasMember("brokerAddrs") && v["brokerAddrs"].IsObject()) {
    for (auto& m : v["brokerAddrs"].GetObject()) {
      if (!m.value.IsString()) continue;
      int64_t id = std::strtoll(m.name.GetString(), nullptr, 10);
      b.brokerAddrs[id] = m.value.GetString();
    }
  }
  return b;
}

}  // namespace

std::optional<FindBrokerResult> findBrokerInSubscribe(const std::map<int64_t, std::string>& addrs, int64_t brokerId,
                                                      bool onlyThisBroker) {
  if (addrs.empty()) return std::nullopt;
  const bool slave = brokerId != kMasterId;
  if (auto it = addrs.find(brokerId); it != addrs.end()) return FindBrokerResult{it->second, slave};
  if (slave) {
    if (auto it = addrs.find(brokerId + 1); it != addrs.end()) return FindBrokerResult{it->second, true};
  }
  if (onlyThisBroker) return std::nullopt;
  const auto& [firstId, firstAddr] = *addrs.begin();  // Java: the map's first entry, the lowest id
  return FindBrokerResult{firstAddr, firstId != kMasterId};
}

const BrokerData* TopicRouteData::broker(std::string_view brokerName) const {
  for (const auto& b : brokerDatas)
    if (b.brokerName == brokerName) return &b;
  return nullptr;
}

Result<TopicRouteData> parseTopicRouteData(std::string_view text) {
  rapidjson::Document doc;
  if (auto r = json::parse(text, doc); !r) return r.error();
  if (!doc.IsObject()) return badBody("TopicRouteData");
  TopicRouteData route;
  if (auto o = json::getString(doc, "orderTopicConf")) route.orderTopicConf = std::string(*o);
  if (doc.HasMember("queueDatas") && doc["queueDatas"].IsArray()) {
    for (auto& q : doc["queueDatas"].GetArray()) {
      if (!q.IsObject()) return badBody("TopicRouteData");
      route.queueDatas.push_back(QueueData{strOr(q, "brokerName"), intOr(q, "readQueueNums"),
                                           intOr(q, "writeQueueNums"), intOr(q, "perm"),
                                           intOr(q, "topicSysFlag")});
    }
  }
  if (doc.HasMember("brokerDatas") && doc["brokerDatas"].IsArray()) {
    for (auto& b : doc["brokerDatas"].GetArray())
      if (b.IsObject()) route.brokerDatas.push_back(parseBrokerData(b));
  }
  return route;
}

std::vector<const BrokerData*> ClusterInfo::brokersOf(std::string_view cluster) const {
  std::vector<const BrokerData*> out;
  for (const auto& [clusterName, brokers] : clusterAddrTable) {
    if (!cluster.empty() && clusterName != cluster) continue;
    for (const auto& name : brokers)
      if (auto it = brokerAddrTable.find(name); it != brokerAddrTable.end()) out.push_back(&it->second);
  }
  return out;
}

Result<ClusterInfo> parseClusterInfo(std::string_view text) {
  rapidjson::Document doc;
  if (auto r = json::parse(text, doc); !r) return r.error();
  if (!doc.IsObject()) return badBody("ClusterInfo");
  ClusterInfo info;
  if (doc.HasMember("brokerAddrTable") && doc["brokerAddrTable"].IsObject())
    for (auto& m : doc["brokerAddrTable"].GetObject())
      if (m.value.IsObject()) info.brokerAddrTable[m.name.GetString()] = parseBrokerData(m.value);
  if (doc.HasMember("clusterAddrTable") && doc["clusterAddrTable"].IsObject())
    for (auto& m : doc["clusterAddrTable"].GetObject()) {
      auto& names = info.clusterAddrTable[m.name.GetString()];
      if (m.value.IsArray())
        for (auto& n : m.value.GetArray())
          if (n.IsString()) names.emplace_back(n.GetString());
    }
  return info;
}

Result<std::vector<std::string>> parseTopicList(std::string_view text) {
  rapidjson::Document doc;
  if (auto r = json::parse(text, doc); !r) return r.error();
  std::vector<std::string> out;
  if (!doc.IsObject()) return badBody("TopicList");
  if (doc.HasMember("topicList") && doc["topicList"].IsArray())
    for (auto& t : doc["topicList"].GetArray())
      if (t.IsString()) out.emplace_back(t.GetString());
  return out;
}

Result<std::map<std::string, std::string>> parseKvTable(std::string_view text) {
  rapidjson::Document doc;
  if (auto r = json::parse(text, doc); !r) return r.error();
  std::map<std::string, std::string> out;
  if (!doc.IsObject()) return badBody("KVTable");
  if (doc.HasMember("table") && doc["table"].IsObject())
    for (auto& m : doc["table"].GetObject())
      out[m.name.GetString()] = m.value.IsString() ? m.value.GetString() : json::toString(m.value);
  return out;
}

std::vector<MessageQueue> publishQueues(const std::string& topic, const TopicRouteData& route) {
  std::vector<MessageQueue> out;
  if (route.orderTopicConf && !route.orderTopicConf->empty()) {
    std::string_view conf = *route.orderTopicConf;  // "brokerName:num;brokerName:num"
    while (!conf.empty()) {
      auto end = conf.find(';');
      auto item = conf.substr(0, end);
      auto colon = item.find(':');
      if (colon != std::string_view::npos) {
        int n = std::atoi(std::string(item.substr(colon + 1)).c_str());
        for (int i = 0; i < n; ++i) out.push_back({topic, std::string(item.substr(0, colon)), i});
      }
      if (end == std::string_view::npos) break;
      conf.remove_prefix(end + 1);
    }
    return out;
  }
  std::vector<QueueData> qds = route.queueDatas;
  std::sort(qds.begin(), qds.end(), [](auto& a, auto& b) { return a.brokerName < b.brokerName; });
  for (const auto& qd : qds) {
    if (!(qd.perm & kPermWrite)) continue;
    const BrokerData* b = route.broker(qd.brokerName);
    if (!b || !b->masterAddr()) continue;
    for (int i = 0; i < qd.writeQueueNums; ++i) out.push_back({topic, qd.brokerName, i});
  }
  return out;
}

std::vector<MessageQueue> subscribeQueues(const std::string& topic, const TopicRouteData& route) {
  std::vector<MessageQueue> out;
  for (const auto& qd : route.queueDatas) {
    if (!(qd.perm & kPermRead)) continue;
    for (int i = 0; i < qd.readQueueNums; ++i) out.push_back({topic, qd.brokerName, i});
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace rmq::client
