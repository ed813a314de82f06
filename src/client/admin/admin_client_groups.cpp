// AdminClient: subscription groups, consumer/producer views, offset reset and message queries.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "client/admin/admin_client.h"
#include "client/broker_api.h"
#include "client/pull_api.h"
#include "client/request_headers.h"
#include "common/consumer_lag.h"
#include "common/json.h"
#include "common/message_codec.h"
#include "common/message_id.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "net/when_all.h"

namespace rmq::client {

namespace {

// One address per broker of the route as DefaultMQAdminExtImpl picks it (selectBrokerAddr: the
// master, else a slave), so admin views keep working while a master is down.
std::vector<std::string> nodeAddrsOf(const TopicRouteData& route) {
  std::vector<std::string> out;
  for (const auto& b : route.brokerDatas)
    if (auto* a = b.selectAddr()) out.push_back(*a);
  return out;
}

ConnectionInfo parseConnection(const rapidjson::Value& v) {
  ConnectionInfo c;
  c.clientId = std::string(json::getString(v, "clientId").value_or(""));
  c.clientAddr = std::string(json::getString(v, "clientAddr").value_or(""));
  c.language = std::string(json::getString(v, "language").value_or(""));
  c.version = static_cast<int32_t>(json::getInt64(v, "version").value_or(0));
  return c;
}

SubscriptionData parseSubscription(const rapidjson::Value& v) {
  SubscriptionData s;
  s.topic = std::string(json::getString(v, "topic").value_or(""));
  s.subString = std::string(json::getString(v, "subString").value_or("*"));
  s.expressionType = std::string(json::getString(v, "expressionType").value_or("TAG"));
  s.subVersion = json::getInt64(v, "subVersion").value_or(0);
  if (v.HasMember("tagsSet") && v["tagsSet"].IsArray())
    for (auto& t : v["tagsSet"].GetArray()) if (t.IsString()) s.tags.emplace_back(t.GetString());
  if (v.HasMember("codeSet") && v["codeSet"].IsArray())
    for (auto& c : v["codeSet"].GetArray()) if (c.IsInt()) s.codes.push_back(c.GetInt());
  return s;
}

// updateConsumerOffset owning its arguments (it takes references): safe inside a whenAll fan-out,
// whose tasks may outlive the caller when the deadline passes.
asio::awaitable<Result<void>> commitOffset(std::shared_ptr<ClientInstance> inst, std::string group, MessageQueue mq,
                                           int64_t offset) {
  co_return co_await updateConsumerOffset(*inst, group, mq, offset, false);
}

}  // namespace

namespace {
// rmqnode's POP fields of an OffsetWrapper (a Java broker sends none; a 5.x one only pullOffset).
std::optional<PopQueueFigures> popFigures(const rapidjson::Value& wrapper) {
  auto inFlight = json::getInt64(wrapper, "popInFlight");
  if (!inFlight) return std::nullopt;
  return PopQueueFigures{json::getInt64(wrapper, "pullOffset").value_or(0), *inFlight,
                         json::getInt64(wrapper, "popDue").value_or(0),
                         json::getInt64(wrapper, "popDeadLettered").value_or(0)};
}
}  // namespace

void appendConsumeStats(const rapidjson::Value& doc, const std::string& topic, ConsumeStats& out) {
  if (!doc.IsObject()) return;
  if (doc.HasMember("consumeTps") && doc["consumeTps"].IsNumber()) out.consumeTps += doc["consumeTps"].GetDouble();
  if (!doc.HasMember("offsetTable") || !doc["offsetTable"].IsObject()) return;
  for (auto& m : doc["offsetTable"].GetObject()) {
    auto key = json::parseMessageQueueKey(json::keyView(m.name));
    if (!key || !m.value.IsObject()) continue;
    if (!topic.empty() && key->topic != topic) continue;
    out.offsets.push_back({{key->topic, key->brokerName, key->queueId},
                           json::getInt64(m.value, "brokerOffset").value_or(0),
                           json::getInt64(m.value, "consumerOffset").value_or(0),
                           json::getInt64(m.value, "lastTimestamp").value_or(0),
                           popFigures(m.value)});
  }
}

int64_t ConsumeStats::diffTotal() const {
  int64_t total = 0;
  for (const auto& e : offsets) total += queueLag(e.brokerOffset, e.consumerOffset);
  return total;
}

std::optional<PopQueueFigures> ConsumeStats::popTotal() const {
  std::optional<PopQueueFigures> total;
  for (const auto& e : offsets) {
    if (!e.pop) continue;
    if (!total) total.emplace();
    total->pullOffset += e.pop->pullOffset;
    total->inFlight += e.pop->inFlight;
    total->due += e.pop->due;
    total->deadLettered += e.pop->deadLettered;
  }
  return total;
}

asio::awaitable<Result<void>> AdminClient::asyncUpdateSubscriptionGroup(std::string brokerAddr,
                                                                        SubscriptionGroupConfig config) {
  auto cmd = net::RemotingCommand::request(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP);
  cmd.body = config.toJson();
  auto r = co_await callOk(brokerAddr, std::move(cmd));
  if (!r) co_return r.error();
  co_return Result<void>{};
}

asio::awaitable<Result<void>> AdminClient::asyncDeleteSubscriptionGroup(std::string brokerAddr, std::string group,
                                                                        bool removeOffset) {
  auto cmd = net::RemotingCommand::request(RequestCode::DELETE_SUBSCRIPTIONGROUP);
  cmd.extFields.set("groupName", group);
  cmd.extFields.setBool("removeOffset", removeOffset);
  auto r = co_await callOk(brokerAddr, std::move(cmd));
  if (!r) co_return r.error();
  co_return Result<void>{};
}

asio::awaitable<Result<ConsumeStats>> AdminClient::asyncConsumeStats(std::string group, std::string topic) {
  std::set<std::string> addrs;
  std::vector<std::string> topics;
  topics.push_back(retryTopic(group));
  topics.push_back(topic);
  for (const std::string& t : topics) {
    if (t.empty()) continue;
    auto route = co_await instance_->route(t, true);
    if (route) for (const auto& a : nodeAddrsOf(*route)) addrs.insert(a);
  }
  if (addrs.empty()) co_return makeError(ResponseCode::TOPIC_NOT_EXIST, "no broker serves group " + group);
  auto cmd = net::RemotingCommand::request(RequestCode::GET_CONSUME_STATS);
  cmd.extFields.set("consumerGroup", group);
  if (!topic.empty()) cmd.extFields.set("topic", topic);
  std::vector<std::string> brokers(addrs.begin(), addrs.end());
  auto answers = co_await callEach(std::move(brokers), std::move(cmd));
  ConsumeStats stats;
  for (auto& resp : answers) {
    if (!resp) co_return resp.error();
    rapidjson::Document doc;
    if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
    appendConsumeStats(doc, topic, stats);
  }
  std::sort(stats.offsets.begin(), stats.offsets.end(), [](auto& a, auto& b) { return a.queue < b.queue; });
  co_return stats;
}

asio::awaitable<Result<std::map<MessageQueue, int64_t>>> AdminClient::asyncCloneGroupOffset(std::string srcGroup,
                                                                                              std::string destGroup,
                                                                                              std::string topic) {
  auto stats = co_await asyncConsumeStats(srcGroup, topic);
  if (!stats) co_return stats.error();
  std::map<MessageQueue, int64_t> copied;
  std::vector<asio::awaitable<Result<void>>> updates;
  for (const auto& e : stats->offsets) {
    if (e.consumerOffset < 0) continue;  // the source never committed this queue
    copied[e.queue] = e.consumerOffset;
    updates.push_back(commitOffset(instance_, destGroup, e.queue, e.consumerOffset));
  }
  auto answers = co_await asyncAll(std::move(updates));
  if (auto e = net::firstError(answers)) co_return *e;
  co_return copied;
}

asio::awaitable<Result<ConsumerConnectionInfo>> AdminClient::asyncConsumerConnection(std::string group) {
  const std::string retry = retryTopic(group);
  auto route = co_await instance_->route(retry, true);
  if (!route) co_return route.error();
  auto addrs = nodeAddrsOf(*route);
  if (addrs.empty()) co_return makeError(ResponseCode::CONSUMER_NOT_ONLINE, "the consumer group is not online");
  auto cmd = net::RemotingCommand::request(RequestCode::GET_CONSUMER_CONNECTION_LIST);
  cmd.extFields.set("consumerGroup", group);
  auto resp = co_await callOk(addrs.front(), std::move(cmd));
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  ConsumerConnectionInfo info;
  if (!doc.IsObject()) co_return makeError(ResponseCode::SYSTEM_ERROR, "malformed ConsumerConnection body");
  if (doc.HasMember("connectionSet") && doc["connectionSet"].IsArray())
    for (auto& c : doc["connectionSet"].GetArray()) if (c.IsObject()) info.connections.push_back(parseConnection(c));
  if (doc.HasMember("subscriptionTable") && doc["subscriptionTable"].IsObject())
    for (auto& m : doc["subscriptionTable"].GetObject())
      if (m.value.IsObject()) info.subscriptions.push_back(parseSubscription(m.value));
  info.consumeType = std::string(json::getString(doc, "consumeType").value_or(""));
  info.messageModel = std::string(json::getString(doc, "messageModel").value_or(""));
  info.consumeFromWhere = std::string(json::getString(doc, "consumeFromWhere").value_or(""));
  co_return info;
}

asio::awaitable<Result<ProducerTable>> AdminClient::asyncAllProducerInfo(std::string brokerAddr) {
  auto resp = co_await callOk(brokerAddr, net::RemotingCommand::request(RequestCode::GET_ALL_PRODUCER_INFO));
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  if (!doc.IsObject()) co_return makeError(ResponseCode::SYSTEM_ERROR, "malformed ProducerTableInfo body");
  ProducerTable table;
  if (!doc.HasMember("data") || !doc["data"].IsObject()) co_return table;
  for (auto& g : doc["data"].GetObject()) {
    auto& instances = table[std::string(json::keyView(g.name))];
    if (!g.value.IsArray()) continue;
    for (auto& v : g.value.GetArray()) {
      if (!v.IsObject()) continue;
      ProducerInfo p;
      p.clientId = std::string(json::getString(v, "clientId").value_or(""));
      p.remoteIP = std::string(json::getString(v, "remoteIP").value_or(""));
      p.language = std::string(json::getString(v, "language").value_or(""));
      p.version = static_cast<int32_t>(json::getInt64(v, "version").value_or(0));
      p.lastUpdateTimestamp = json::getInt64(v, "lastUpdateTimestamp").value_or(0);
      instances.push_back(std::move(p));
    }
  }
  co_return table;
}

asio::awaitable<Result<std::vector<ConnectionInfo>>> AdminClient::asyncProducerConnection(std::string group,
                                                                                          std::string topic) {
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  auto cmd = net::RemotingCommand::request(RequestCode::GET_PRODUCER_CONNECTION_LIST);
  cmd.extFields.set("producerGroup", group);
  std::vector<std::string> brokers = nodeAddrsOf(*route);
  auto answers = co_await callEach(std::move(brokers), std::move(cmd));
  std::vector<ConnectionInfo> out;
  std::set<std::string> seen;  // a producer connects to every broker it sends to: once per client id
  bool known = false;
  for (auto& resp : answers) {
    if (!resp) continue;
    rapidjson::Document doc;
    if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
    known = true;
    if (doc.IsObject() && doc.HasMember("connectionSet") && doc["connectionSet"].IsArray())
      for (auto& c : doc["connectionSet"].GetArray())
        if (c.IsObject()) {
          ConnectionInfo conn = parseConnection(c);
          if (seen.insert(conn.clientId).second) out.push_back(std::move(conn));
        }
  }
  if (!known) {
    if (auto e = net::firstError(answers)) co_return *e;
    co_return makeError(ResponseCode::TOPIC_NOT_EXIST, "no broker serves topic " + topic);
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.clientId < b.clientId; });
  co_return out;
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncConsumerIds(std::string group, std::string topic) {
  co_return co_await consumerIdList(*instance_, group, topic);
}

asio::awaitable<Result<std::vector<std::string>>> AdminClient::asyncTopicConsumeByWho(std::string topic) {
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  auto cmd = net::RemotingCommand::request(RequestCode::QUERY_TOPIC_CONSUME_BY_WHO);
  cmd.extFields.set("topic", topic);
  std::vector<std::string> brokers = nodeAddrsOf(*route);
  auto answers = co_await callEach(std::move(brokers), std::move(cmd));
  std::set<std::string> groups;
  for (auto& resp : answers) {
    if (!resp) co_return resp.error();
    rapidjson::Document doc;
    if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
    if (!doc.IsObject() || !doc.HasMember("groupList") || !doc["groupList"].IsArray()) continue;
    for (auto& g : doc["groupList"].GetArray())
      if (g.IsString()) groups.insert(g.GetString());
  }
  co_return std::vector<std::string>(groups.begin(), groups.end());
}

asio::awaitable<Result<std::map<MessageQueue, int64_t>>> AdminClient::asyncResetOffsetByTime(
    std::string group, std::string topic, int64_t timestampMs, bool force) {
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  std::vector<asio::awaitable<Result<std::map<MessageQueue, int64_t>>>> resets;
  for (const auto& broker : route->brokerDatas)
    resets.push_back(resetOffsetOnBroker(group, topic, timestampMs, force, *route, broker));
  // The offline fallback makes two calls per queue: the deadline covers that worst case.
  auto queues = static_cast<int64_t>(subscribeQueues(topic, *route).size());
  std::chrono::milliseconds deadline = instance_->config().rpcTimeout * (1 + 2 * queues);
  auto answers = co_await net::whenAll(std::move(resets), deadline);
  std::map<MessageQueue, int64_t> result;
  for (auto& answer : answers) {
    if (!answer) co_return answer.error();
    result.merge(answer.value());
  }
  co_return result;
}

asio::awaitable<Result<std::map<MessageQueue, int64_t>>> AdminClient::resetOffsetOnBroker(
    std::string group, std::string topic, int64_t timestampMs, bool force, TopicRouteData route, BrokerData broker) {
  std::map<MessageQueue, int64_t> result;
  auto* node = broker.selectAddr();
  if (!node) co_return result;
  const std::string addr = *node;
  auto cmd = net::RemotingCommand::request(RequestCode::INVOKE_BROKER_TO_RESET_OFFSET);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("group", group);
  cmd.extFields.set("timestamp", timestampMs);
  cmd.extFields.setBool("isForce", force);
  auto resp = co_await callOk(addr, std::move(cmd));
  if (!resp) {
    // No consumer online: like mqadmin (resetOffsetByTimestampOld), set the offsets directly.
    const auto& e = resp.error();
    bool offline = e.code == ResponseCode::CONSUMER_NOT_ONLINE ||
                   e.message.find("not online") != std::string::npos || e.message.find("not exist") != std::string::npos;
    if (!offline) co_return resp.error();
    for (const auto& mq : subscribeQueues(topic, route)) {
      if (mq.brokerName != broker.brokerName) continue;
      Result<int64_t> offset = int64_t{0};
      if (timestampMs == kSkipToMaxOffset) offset = co_await queueOffsetQuery(*instance_, RequestCode::GET_MAX_OFFSET, mq);
      else offset = co_await searchOffset(*instance_, mq, timestampMs);
      if (!offset) co_return offset.error();
      auto updated = co_await updateConsumerOffset(*instance_, group, mq, *offset, false);
      if (!updated) co_return updated.error();
      result[mq] = *offset;
    }
    co_return result;
  }
  rapidjson::Document doc;
  if (resp->body.empty() || !json::parse(resp->body, doc).ok() || !doc.IsObject() || !doc.HasMember("offsetTable") ||
      !doc["offsetTable"].IsObject())
    co_return result;
  for (auto& m : doc["offsetTable"].GetObject()) {
    auto key = json::parseMessageQueueKey(json::keyView(m.name));
    if (key && m.value.IsInt64()) result[{key->topic, key->brokerName, key->queueId}] = m.value.GetInt64();
  }
  co_return result;
}

asio::awaitable<Result<MessageExt>> AdminClient::asyncViewMessage(std::string offsetMsgId) {
  auto id = parseOffsetMsgId(offsetMsgId);
  if (!id) co_return makeError(ResponseCode::SYSTEM_ERROR, "malformed offset message id " + offsetMsgId);
  auto cmd = net::RemotingCommand::request(RequestCode::VIEW_MESSAGE_BY_ID);
  cmd.extFields.set("offset", id->commitLogOffset);
  auto resp = co_await callOk(id->storeHost.toString(), std::move(cmd));
  if (!resp) co_return resp.error();
  co_return decodeMessage(resp->body, true);
}

asio::awaitable<Result<void>> AdminClient::asyncResumeCheckHalfMessage(std::string offsetMsgId) {
  auto id = parseOffsetMsgId(offsetMsgId);
  if (!id) co_return makeError(ResponseCode::SYSTEM_ERROR, "malformed offset message id " + offsetMsgId);
  auto cmd = net::RemotingCommand::request(RequestCode::RESUME_CHECK_HALF_MESSAGE);
  cmd.extFields.set("msgId", offsetMsgId);
  auto resp = co_await callOk(id->storeHost.toString(), std::move(cmd));
  if (!resp) co_return resp.error();
  co_return Result<void>{};
}

asio::awaitable<Result<std::vector<MessageExt>>> AdminClient::asyncQueryMessageByKey(std::string topic, std::string key,
                                                                                     int maxNum, int64_t beginMs,
                                                                                     int64_t endMs, bool uniqKey) {
  auto route = co_await instance_->route(topic, true);
  if (!route) co_return route.error();
  auto cmd = net::RemotingCommand::request(RequestCode::QUERY_MESSAGE);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("key", key);
  cmd.extFields.set("maxNum", int64_t{maxNum});
  cmd.extFields.set("beginTimestamp", beginMs);
  cmd.extFields.set("endTimestamp", endMs);
  cmd.extFields.setBool("_UNIQUE_KEY_QUERY", uniqKey);
  std::vector<std::string> brokers = nodeAddrsOf(*route);
  std::chrono::milliseconds timeout(15000);
  auto answers = co_await callEach(std::move(brokers), std::move(cmd), timeout);
  std::vector<MessageExt> out;
  for (auto& resp : answers) {
    if (!resp && resp.error().code == ResponseCode::QUERY_NOT_FOUND) continue;
    if (!resp) co_return resp.error();
    auto msgs = decodeMessages(resp->body, true);
    if (!msgs) co_return msgs.error();
    for (auto& m : msgs.value()) {  // the index is a hash: keep exact matches only
      bool match = false;
      if (uniqKey) {
        auto* u = m.property(prop::UNIQ_KEY);
        match = u && *u == key;
      } else {
        std::string keys = m.keys();
        size_t pos = 0;
        while (!match && pos <= keys.size()) {
          size_t sp = keys.find(prop::KEY_SEPARATOR, pos);
          match = keys.substr(pos, sp == std::string::npos ? std::string::npos : sp - pos) == key;
          if (sp == std::string::npos) break;
          pos = sp + 1;
        }
      }
      if (match && m.topic == topic) out.push_back(std::move(m));
    }
  }
  if (out.empty()) co_return makeError(ResponseCode::QUERY_NOT_FOUND, "query message by key finished, but no message.");
  co_return out;
}

asio::awaitable<Result<MessageExt>> AdminClient::asyncQueryMessageByOffset(MessageQueue mq, int64_t offset) {
  PullMessageHeader h;
  h.consumerGroup = "TOOLS_CONSUMER";
  h.topic = mq.topic;
  h.queueId = mq.queueId;
  h.queueOffset = offset;
  h.maxMsgNums = 1;
  h.sysFlag = kPullSubscription;
  h.subscription = "*";
  h.expressionType = "TAG";
  h.brokerName = mq.brokerName;
  const std::chrono::milliseconds timeout(10000);
  auto r = co_await pullKernel(*instance_, pullNodes_, mq, h, timeout, nullptr);
  if (!r) co_return r.error();
  if (r->status != PullStatus::FOUND || r->messages.empty())
    co_return makeError(ResponseCode::QUERY_NOT_FOUND, fmt::format("no message at {} offset {} ({})", mq.toString(),
                                                                   offset, pullStatusName(r->status)));
  co_return std::move(r->messages.front());
}

asio::awaitable<Result<int64_t>> AdminClient::asyncMaxOffset(MessageQueue mq) {
  co_return co_await queueOffsetQuery(*instance_, RequestCode::GET_MAX_OFFSET, mq);
}

asio::awaitable<Result<int64_t>> AdminClient::asyncMinOffset(MessageQueue mq) {
  co_return co_await queueOffsetQuery(*instance_, RequestCode::GET_MIN_OFFSET, mq);
}

}  // namespace rmq::client
