// JSON encoders of the name server's bodies. Property order is alphabetical like fastjson's
// SortField; map keys are written unquoted (fastjson default) or quoted (standard JSON form).
#include <rapidjson/encodings.h>

#include "common/json.h"
#include "roles/namesrv/route_data.h"

namespace rmq::namesrv {
namespace {

// Standard-JSON form: BrowserCompatible escapes non-ASCII as \uXXXX.
using AsciiWriter = rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::ASCII<>>;

template <class W>
void key(W& w, std::string_view k) { w.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); }
template <class W>
void str(W& w, std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

template <class W>
void writeBrokerId(W& w, int64_t id) {
  if constexpr (std::is_same_v<W, json::Writer>) {
    json::writeIntKey(w, id);  // fastjson: {0:"addr"}
  } else {
    key(w, std::to_string(id));  // standard: {"0":"addr"}
  }
}

template <class W>
void writeBrokerData(W& w, const BrokerData& b) {
  w.StartObject();
  key(w, "brokerAddrs");
  w.StartObject();
  for (auto& [id, addr] : b.brokerAddrs) {
    writeBrokerId(w, id);
    str(w, addr);
  }
  w.EndObject();
  key(w, "brokerName");
  str(w, b.brokerName);
  key(w, "cluster");
  str(w, b.cluster);
  w.EndObject();
}

template <class W>
void writeQueueData(W& w, const QueueData& q) {
  w.StartObject();
  key(w, "brokerName");
  str(w, q.brokerName);
  key(w, "perm");
  w.Int(q.perm);
  key(w, "readQueueNums");
  w.Int(q.readQueueNums);
  key(w, "topicSysFlag");
  w.Int(q.topicSysFlag);
  key(w, "writeQueueNums");
  w.Int(q.writeQueueNums);
  w.EndObject();
}

template <class W>
void writeRoute(W& w, const TopicRouteData& r) {
  w.StartObject();
  key(w, "brokerDatas");
  w.StartArray();
  for (auto& b : r.brokerDatas) writeBrokerData(w, b);
  w.EndArray();
  key(w, "filterServerTable");
  w.StartObject();
  for (auto& [addr, servers] : r.filterServerTable) {
    key(w, addr);
    w.StartArray();
    for (auto& s : servers) str(w, s);
    w.EndArray();
  }
  w.EndObject();
  if (r.orderTopicConf) {
    key(w, "orderTopicConf");
    str(w, *r.orderTopicConf);
  }
  key(w, "queueDatas");
  w.StartArray();
  for (auto& q : r.queueDatas) writeQueueData(w, q);
  w.EndArray();
  w.EndObject();
}

std::string text(const json::Buffer& b) { return std::string(b.GetString(), b.GetSize()); }

}  // namespace

std::string encodeTopicRouteData(const TopicRouteData& route, bool standardJson) {
  json::Buffer buf;
  if (standardJson) {
    AsciiWriter w(buf);
    writeRoute(w, route);
  } else {
    json::Writer w(buf);
    writeRoute(w, route);
  }
  return text(buf);
}

std::string encodeClusterInfo(const std::map<std::string, BrokerData>& brokerAddrTable,
                              const std::map<std::string, std::set<std::string>>& clusterAddrTable) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  key(w, "brokerAddrTable");
  w.StartObject();
  for (auto& [name, data] : brokerAddrTable) {
    key(w, name);
    writeBrokerData(w, data);
  }
  w.EndObject();
  key(w, "clusterAddrTable");
  w.StartObject();
  for (auto& [cluster, names] : clusterAddrTable) {
    key(w, cluster);
    w.StartArray();
    for (auto& n : names) str(w, n);
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return text(buf);
}

std::string encodeTopicList(const std::vector<std::string>& topics, const std::optional<std::string>& brokerAddr) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  if (brokerAddr) {
    key(w, "brokerAddr");
    str(w, *brokerAddr);
  }
  key(w, "topicList");
  w.StartArray();
  for (auto& t : topics) str(w, t);
  w.EndArray();
  w.EndObject();
  return text(buf);
}

std::string encodeDataVersion(const DataVersion& v) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  key(w, "counter");
  w.Int64(v.counter);
  if (v.stateVersion) {  // only what the broker sent: a 4.x broker's answer stays byte-identical
    key(w, "stateVersion");
    w.Int64(*v.stateVersion);
  }
  key(w, "timestamp");
  w.Int64(v.timestamp);
  w.EndObject();
  return text(buf);
}

std::string encodeKvTable(const std::map<std::string, std::string>& table) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  key(w, "table");
  w.StartObject();
  for (auto& [k, v] : table) {
    key(w, k);
    str(w, v);
  }
  w.EndObject();
  w.EndObject();
  return text(buf);
}

}  // namespace rmq::namesrv
