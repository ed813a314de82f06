#include "console/console_json.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "client/message_helpers.h"
#include "common/consumer_lag.h"
#include "common/json.h"

namespace rmq::console {
namespace {

std::string finish(const json::Buffer& buf) { return std::string(buf.GetString(), buf.GetSize()); }

void str(json::Writer& w, const char* key, std::string_view v) {
  w.Key(key);
  w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}
void i64(json::Writer& w, const char* key, int64_t v) {
  w.Key(key);
  w.Int64(v);
}

std::string get(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  return it == kv.end() ? std::string() : it->second;
}
// First number of a value like putTps "12.5 10.1 9.8" (the 10 s / 1 min / 10 min rates).
double firstNumber(const std::string& text) { return text.empty() ? 0 : std::strtod(text.c_str(), nullptr); }
int64_t integer(const std::string& text) { return text.empty() ? 0 : std::strtoll(text.c_str(), nullptr, 10); }

void writeKv(json::Writer& w, const std::map<std::string, std::string>& kv) {
  w.StartObject();
  for (auto& [k, v] : kv) str(w, k.c_str(), v);
  w.EndObject();
}

void writeQueue(json::Writer& w, const client::MessageQueue& q) {
  str(w, "topic", q.topic);
  str(w, "brokerName", q.brokerName);
  i64(w, "queueId", q.queueId);
}

// "key":[{..},..]: one object per item, its members written by writeMembers(w, item).
template <class Items, class WriteMembers>
void objectArray(json::Writer& w, const char* key, const Items& items, WriteMembers writeMembers) {
  w.Key(key);
  w.StartArray();
  for (const auto& item : items) {
    w.StartObject();
    writeMembers(w, item);
    w.EndObject();
  }
  w.EndArray();
}

// A client connection as GET_CONSUMER/PRODUCER_CONNECTION_LIST report it (consumers and producers alike).
void writeConnection(json::Writer& w, const client::ConnectionInfo& c) {
  str(w, "clientId", c.clientId);
  str(w, "clientAddr", c.clientAddr);
  str(w, "language", c.language);
  i64(w, "version", c.version);
}

void writeSubscription(json::Writer& w, const client::SubscriptionData& s) {
  str(w, "topic", s.topic);
  str(w, "expression", s.subString);
  str(w, "type", s.expressionType);
}

// A POP group's figures (5.x consumers): "pop": {pullOffset, inFlight, due, deadLettered}.
void writePopFigures(json::Writer& w, const client::PopQueueFigures& p) {
  w.Key("pop");
  w.StartObject();
  i64(w, "pullOffset", p.pullOffset);
  i64(w, "inFlight", p.inFlight);
  i64(w, "due", p.due);
  i64(w, "deadLettered", p.deadLettered);
  w.EndObject();
}

void writeQueueLag(json::Writer& w, const client::ConsumeOffsetEntry& o) {
  writeQueue(w, o.queue);
  i64(w, "brokerOffset", o.brokerOffset);
  i64(w, "consumerOffset", o.consumerOffset);
  i64(w, "lag", queueLag(o.brokerOffset, o.consumerOffset));
  i64(w, "lastTimestamp", o.lastTimestamp);
  if (o.pop) writePopFigures(w, *o.pop);
}

}  // namespace

std::vector<BrokerView> brokerViews(const client::ClusterInfo& info) {
  std::vector<BrokerView> out;
  for (auto& [cluster, names] : info.clusterAddrTable) {
    std::vector<std::string> sorted(names.begin(), names.end());
    std::sort(sorted.begin(), sorted.end());
    for (auto& name : sorted) {
      auto bd = info.brokerAddrTable.find(name);
      if (bd == info.brokerAddrTable.end()) continue;
      for (auto& [id, addr] : bd->second.brokerAddrs) out.push_back(BrokerView{cluster, name, id, addr, {}, {}});
    }
  }
  return out;
}

std::string clusterJson(const std::vector<BrokerView>& brokers) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("clusters");
  w.StartArray();
  for (size_t i = 0; i < brokers.size();) {
    const std::string& cluster = brokers[i].cluster;
    w.StartObject();
    str(w, "name", cluster);
    w.Key("brokers");
    w.StartArray();
    for (; i < brokers.size() && brokers[i].cluster == cluster; ++i) {
      const BrokerView& b = brokers[i];
      w.StartObject();
      str(w, "brokerName", b.brokerName);
      i64(w, "brokerId", b.brokerId);
      str(w, "addr", b.addr);
      str(w, "role", b.brokerId == client::kMasterId ? "MASTER" : "SLAVE");
      if (b.runtime) {
        const auto& rt = *b.runtime;
        str(w, "version", get(rt, "brokerVersionDesc"));
        w.Key("putTps");
        w.Double(firstNumber(get(rt, "putTps")));
        w.Key("getTps");
        w.Double(firstNumber(get(rt, "getTransferedTps")));
        w.Key("diskRatio");
        w.Double(firstNumber(get(rt, "commitLogDiskRatio")));
        i64(w, "msgPutTotalToday", integer(get(rt, "msgPutTotalTodayNow")) - integer(get(rt, "msgPutTotalTodayMorning")));
        i64(w, "msgGetTotalToday", integer(get(rt, "msgGetTotalTodayNow")) - integer(get(rt, "msgGetTotalTodayMorning")));
        i64(w, "commitLogMaxOffset", integer(get(rt, "commitLogMaxOffset")));
        i64(w, "bootTimestamp", integer(get(rt, "bootTimestamp")));
        // Timer messages (roles/broker/delivery/README.md "Timer"): pending on a master, lag p99.
        i64(w, "timerPending", integer(get(rt, "timerPendingCount")));
        i64(w, "timerDelivered", integer(get(rt, "timerDeliveredCount")));
        i64(w, "timerLagP99Ms", integer(get(rt, "timerLagP99Ms")));
      } else {
        str(w, "error", b.error);
      }
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return finish(buf);
}

std::string keyValuesJson(std::string_view addr, std::string_view member, const std::map<std::string, std::string>& kv) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "addr", addr);
  w.Key(member.data(), static_cast<rapidjson::SizeType>(member.size()));
  writeKv(w, kv);
  w.EndObject();
  return finish(buf);
}

std::string topicKind(std::string_view topic, const client::ClusterInfo& info) {
  if (topic.starts_with("%RETRY%")) return "retry";
  if (topic.starts_with("%DLQ%")) return "dlq";
  static const std::set<std::string_view> kSystem{
      "TBW102", "SCHEDULE_TOPIC_XXXX", "BenchmarkTest", "OFFSET_MOVED_EVENT", "SELF_TEST_TOPIC",
      "TRANS_CHECK_MAX_TIME_TOPIC", "RMQ_SYS_TRANS_HALF_TOPIC", "RMQ_SYS_TRANS_OP_HALF_TOPIC", "RMQ_SYS_TRACE_TOPIC"};
  if (kSystem.count(topic) || topic.starts_with("rmq_sys_") || topic.starts_with("RMQ_SYS_") ||
      topic.ends_with("_REPLY_TOPIC"))  // <cluster>_REPLY_TOPIC (request-reply)
    return "system";
  std::string t(topic);
  if (info.clusterAddrTable.count(t) || info.brokerAddrTable.count(t)) return "system";
  return "normal";
}

std::string topicListJson(const std::vector<std::string>& topics, const client::ClusterInfo& info) {
  std::vector<std::string> sorted = topics;
  std::sort(sorted.begin(), sorted.end());
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("topics");
  w.StartArray();
  for (auto& t : sorted) {
    w.StartObject();
    str(w, "name", t);
    str(w, "kind", topicKind(t, info));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return finish(buf);
}

TopicTotals topicTotals(const std::vector<client::TopicOffset>& stats) {
  TopicTotals t;
  for (auto& s : stats) {
    t.messages += std::max<int64_t>(0, s.maxOffset - s.minOffset);
    t.maxOffsetSum += s.maxOffset;
  }
  return t;
}

std::string topicDetailJson(std::string_view topic, const client::TopicRouteData& route,
                            const std::vector<client::TopicOffset>& stats, std::optional<double> tps,
                            const std::vector<std::string>& groups) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "topic", topic);
  w.Key("route");
  w.StartObject();
  if (route.orderTopicConf) str(w, "orderTopicConf", *route.orderTopicConf);
  w.Key("queueDatas");
  w.StartArray();
  for (auto& q : route.queueDatas) {
    w.StartObject();
    str(w, "brokerName", q.brokerName);
    i64(w, "readQueueNums", q.readQueueNums);
    i64(w, "writeQueueNums", q.writeQueueNums);
    i64(w, "perm", q.perm);
    i64(w, "topicSysFlag", q.topicSysFlag);
    w.EndObject();
  }
  w.EndArray();
  w.Key("brokerDatas");
  w.StartArray();
  for (auto& b : route.brokerDatas) {
    w.StartObject();
    str(w, "cluster", b.cluster);
    str(w, "brokerName", b.brokerName);
    w.Key("brokerAddrs");
    w.StartObject();
    for (auto& [id, addr] : b.brokerAddrs) str(w, std::to_string(id).c_str(), addr);
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("queues");
  w.StartArray();
  for (auto& s : stats) {
    w.StartObject();
    str(w, "brokerName", s.queue.brokerName);
    i64(w, "queueId", s.queue.queueId);
    i64(w, "minOffset", s.minOffset);
    i64(w, "maxOffset", s.maxOffset);
    i64(w, "lastUpdateTimestamp", s.lastUpdateTimestamp);
    w.EndObject();
  }
  w.EndArray();
  TopicTotals totals = topicTotals(stats);
  i64(w, "messages", totals.messages);
  i64(w, "maxOffsetSum", totals.maxOffsetSum);
  w.Key("tps");
  if (tps) w.Double(*tps);
  else w.Null();
  w.Key("consumerGroups");
  w.StartArray();
  for (auto& g : groups) w.String(g.c_str(), static_cast<rapidjson::SizeType>(g.size()));
  w.EndArray();
  w.EndObject();
  return finish(buf);
}

std::vector<std::string> groupsOfTopics(const std::vector<std::string>& topics) {
  std::vector<std::string> out;
  for (auto& t : topics)
    if (t.starts_with("%RETRY%") && t.size() > 7) out.push_back(t.substr(7));
  std::sort(out.begin(), out.end());
  return out;
}

std::string groupListJson(const std::vector<GroupSummary>& groups) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("groups");
  w.StartArray();
  for (auto& g : groups) {
    w.StartObject();
    str(w, "group", g.group);
    i64(w, "members", static_cast<int64_t>(g.members));
    if (g.stats) {
      w.Key("consumeTps");
      w.Double(g.stats->consumeTps);
      i64(w, "diff", g.stats->diffTotal());
      if (auto pop = g.stats->popTotal()) writePopFigures(w, *pop);
    } else {
      str(w, "error", g.error);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return finish(buf);
}

std::string groupDetailJson(std::string_view group, const std::optional<client::ConsumerConnectionInfo>& connection,
                            const std::optional<client::ConsumeStats>& stats) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "group", group);
  w.Key("online");
  w.Bool(connection && !connection->connections.empty());
  if (connection) {
    str(w, "consumeType", connection->consumeType);
    str(w, "messageModel", connection->messageModel);
    str(w, "consumeFromWhere", connection->consumeFromWhere);
  }
  static const client::ConsumerConnectionInfo kNoConnection;
  const client::ConsumerConnectionInfo& conn = connection ? *connection : kNoConnection;
  objectArray(w, "members", conn.connections, writeConnection);
  objectArray(w, "subscriptions", conn.subscriptions, writeSubscription);
  w.Key("consumeTps");
  w.Double(stats ? stats->consumeTps : 0.0);
  i64(w, "diff", stats ? stats->diffTotal() : 0);
  if (auto pop = stats ? stats->popTotal() : std::nullopt) writePopFigures(w, *pop);
  static const std::vector<client::ConsumeOffsetEntry> kNoOffsets;
  objectArray(w, "queues", stats ? stats->offsets : kNoOffsets, writeQueueLag);
  w.EndObject();
  return finish(buf);
}

std::string producerListJson(std::string_view group, std::string_view topic,
                             const std::vector<client::ConnectionInfo>& connections) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "group", group);
  str(w, "topic", topic);
  w.Key("online");
  w.Bool(!connections.empty());
  objectArray(w, "connections", connections, writeConnection);
  w.EndObject();
  return finish(buf);
}

std::string resetOffsetJson(std::string_view group, std::string_view topic, int64_t timestamp,
                            const std::map<client::MessageQueue, int64_t>& offsets) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "group", group);
  str(w, "topic", topic);
  i64(w, "timestamp", timestamp);
  objectArray(w, "queues", offsets, [](json::Writer& w, const auto& queueOffset) {
    writeQueue(w, queueOffset.first);
    i64(w, "offset", queueOffset.second);
  });
  w.EndObject();
  return finish(buf);
}

bool isPrintableUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) return false;
      ++i;
      continue;
    }
    size_t n = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 0;
    if (n == 0 || c == 0xc0 || c == 0xc1 || c > 0xf4 || i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    i += n + 1;
  }
  return true;
}

std::string hexOf(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

namespace {
void writeMessage(json::Writer& w, const MessageExt& m, std::string_view brokerName, size_t bodyLimit) {
  w.StartObject();
  std::string uniq = client::uniqKey(m);
  std::string offsetId = m.offsetMsgId();
  str(w, "msgId", uniq.empty() ? offsetId : uniq);
  str(w, "offsetMsgId", offsetId);
  str(w, "topic", m.topic);
  if (!brokerName.empty()) str(w, "brokerName", brokerName);
  i64(w, "queueId", m.queueId);
  i64(w, "queueOffset", m.queueOffset);
  str(w, "tags", m.tags());
  str(w, "keys", m.keys());
  i64(w, "bornTimestamp", m.bornTimestamp);
  str(w, "bornHost", m.bornHost.toString());
  i64(w, "storeTimestamp", m.storeTimestamp);
  str(w, "storeHost", m.storeHost.toString());
  i64(w, "commitLogOffset", m.commitLogOffset);
  i64(w, "reconsumeTimes", m.reconsumeTimes);
  i64(w, "sysFlag", m.sysFlag);
  i64(w, "bodySize", static_cast<int64_t>(m.body.size()));
  std::string_view body = m.body;
  bool truncated = body.size() > bodyLimit;
  if (truncated) body = body.substr(0, bodyLimit);
  w.Key("bodyTruncated");
  w.Bool(truncated);
  w.Key("bodyText");
  // A cut may split a UTF-8 sequence: drop up to 3 trailing continuation bytes before checking.
  std::string_view textPart = body;
  if (truncated) {
    size_t back = 0;
    while (back < 3 && back < textPart.size() &&
           (static_cast<unsigned char>(textPart[textPart.size() - 1 - back]) & 0xc0) == 0x80)
      ++back;
    if (back < textPart.size() && static_cast<unsigned char>(textPart[textPart.size() - 1 - back]) >= 0xc0)
      textPart = textPart.substr(0, textPart.size() - 1 - back);
  }
  if (isPrintableUtf8(textPart)) w.String(textPart.data(), static_cast<rapidjson::SizeType>(textPart.size()));
  else w.Null();
  str(w, "bodyHex", hexOf(body));
  w.Key("properties");
  w.StartObject();
  for (auto& [k, v] : m.properties) str(w, k.c_str(), v);
  w.EndObject();
  w.EndObject();
}
}  // namespace

std::string messageJson(const MessageExt& m, std::string_view brokerName, size_t bodyLimit) {
  json::Buffer buf;
  json::Writer w(buf);
  writeMessage(w, m, brokerName, bodyLimit);
  return finish(buf);
}

std::string messageListJson(const std::vector<MessageExt>& messages, size_t bodyLimit) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  w.Key("messages");
  w.StartArray();
  for (auto& m : messages) writeMessage(w, m, {}, bodyLimit);
  w.EndArray();
  w.EndObject();
  return finish(buf);
}

std::string sendResultJson(const client::SendResult& r) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "status", client::sendStatusName(r.status));
  str(w, "msgId", r.msgId);
  str(w, "offsetMsgId", r.offsetMsgId);
  writeQueue(w, r.queue);
  i64(w, "queueOffset", r.queueOffset);
  w.EndObject();
  return finish(buf);
}

std::string errorJson(std::string_view message, int code) {
  json::Buffer buf;
  json::Writer w(buf);
  w.StartObject();
  str(w, "error", message);
  i64(w, "code", code);
  w.EndObject();
  return finish(buf);
}

std::optional<double> ratePerSecond(int64_t prevCount, int64_t prevMs, int64_t count, int64_t nowMs) {
  if (nowMs <= prevMs || count < prevCount) return std::nullopt;
  return static_cast<double>(count - prevCount) * 1000.0 / static_cast<double>(nowMs - prevMs);
}

}  // namespace rmq::console
