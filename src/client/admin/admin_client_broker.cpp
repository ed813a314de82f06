// AdminClient: one broker's views and maintenance requests (GET_BROKER_CONSUME_STATS,
// QUERY_CONSUME_QUEUE, CLEAN_EXPIRED_CONSUMEQUEUE, CLEAN_UNUSED_TOPIC, DELETE_EXPIRED_COMMITLOG,
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG), as DefaultMQAdminExtImpl makes them.
#include <algorithm>

#include "client/admin/admin_client.h"
#include "common/json.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

namespace {

// MixAll.isSysConsumerGroup and DefaultMQAdminExtImpl's SYSTEM_GROUP_SET.
bool isSystemGroup(const std::string& group) {
  static const char* const kSystemGroups[] = {
      "DEFAULT_CONSUMER",   "DEFAULT_PRODUCER",  "TOOLS_CONSUMER",     "FILTERSRV_CONSUMER",
      "__MONITOR_CONSUMER", "CLIENT_INNER_PRODUCER", "SELF_TEST_P_GROUP", "SELF_TEST_C_GROUP",
      "CID_ONS-HTTP-PROXY", "CID_ONSAPI_PERMISSION", "CID_ONSAPI_OWNER", "CID_ONSAPI_PULL"};
  if (group.rfind("CID_RMQ_SYS_", 0) == 0) return true;
  for (const char* g : kSystemGroups)
    if (group == g) return true;
  return false;
}

TopicConfigSpec parseTopicConfig(const rapidjson::Value& v, const std::string& name) {
  TopicConfigSpec t;
  t.topicName = std::string(json::getString(v, "topicName").value_or(name));
  t.readQueueNums = static_cast<int32_t>(json::getInt64(v, "readQueueNums").value_or(t.readQueueNums));
  t.writeQueueNums = static_cast<int32_t>(json::getInt64(v, "writeQueueNums").value_or(t.writeQueueNums));
  t.perm = static_cast<int32_t>(json::getInt64(v, "perm").value_or(t.perm));
  t.topicFilterType = std::string(json::getString(v, "topicFilterType").value_or(t.topicFilterType));
  t.topicSysFlag = static_cast<int32_t>(json::getInt64(v, "topicSysFlag").value_or(0));
  t.order = v.HasMember("order") && v["order"].IsBool() && v["order"].GetBool();
  return t;
}

}  // namespace

asio::awaitable<Result<BrokerConsumeStats>> AdminClient::asyncBrokerConsumeStats(std::string brokerAddr, bool isOrder,
                                                                                 std::chrono::milliseconds timeout) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_BROKER_CONSUME_STATS);
  cmd.extFields.setBool("isOrder", isOrder);
  auto resp = co_await callOk(brokerAddr, std::move(cmd), timeout);
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  if (!doc.IsObject()) co_return makeError(ResponseCode::SYSTEM_ERROR, "malformed ConsumeStatsList body");
  BrokerConsumeStats out;
  out.brokerAddr = std::string(json::getString(doc, "brokerAddr").value_or(brokerAddr));
  out.totalDiff = json::getInt64(doc, "totalDiff").value_or(0);
  if (doc.HasMember("consumeStatsList") && doc["consumeStatsList"].IsArray())
    for (auto& entry : doc["consumeStatsList"].GetArray()) {  // [{group: [ConsumeStats per topic]}]
      if (!entry.IsObject()) continue;
      for (auto& g : entry.GetObject()) {
        if (!g.value.IsArray()) continue;
        for (auto& stats : g.value.GetArray()) {
          GroupConsumeStats one{std::string(json::keyView(g.name)), {}};
          appendConsumeStats(stats, {}, one.stats);
          std::sort(one.stats.offsets.begin(), one.stats.offsets.end(),
                    [](auto& a, auto& b) { return a.queue < b.queue; });
          out.groups.push_back(std::move(one));
        }
      }
    }
  co_return out;
}

asio::awaitable<Result<ConsumeQueueView>> AdminClient::asyncQueryConsumeQueue(std::string brokerAddr, std::string topic,
                                                                             int32_t queueId, int64_t index,
                                                                             int32_t count, std::string group) {
  auto cmd = net::RemotingCommand::request(RequestCode::QUERY_CONSUME_QUEUE);
  cmd.extFields.set("topic", topic);
  cmd.extFields.set("queueId", int64_t{queueId});
  cmd.extFields.set("index", index);
  cmd.extFields.set("count", int64_t{count});
  if (!group.empty()) cmd.extFields.set("consumerGroup", group);
  auto resp = co_await callOk(brokerAddr, std::move(cmd));
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  if (!doc.IsObject()) co_return makeError(ResponseCode::SYSTEM_ERROR, "malformed QueryConsumeQueueResponseBody");
  ConsumeQueueView out;
  out.maxQueueIndex = json::getInt64(doc, "maxQueueIndex").value_or(0);
  out.minQueueIndex = json::getInt64(doc, "minQueueIndex").value_or(0);
  if (doc.HasMember("queueData") && doc["queueData"].IsArray())
    for (auto& u : doc["queueData"].GetArray()) {
      if (!u.IsObject()) continue;
      ConsumeQueueUnit unit;
      unit.physicOffset = json::getInt64(u, "physicOffset").value_or(0);
      unit.physicSize = static_cast<int32_t>(json::getInt64(u, "physicSize").value_or(0));
      unit.tagsCode = json::getInt64(u, "tagsCode").value_or(0);
      unit.extendDataJson = std::string(json::getString(u, "extendDataJson").value_or("null"));
      unit.bitMap = std::string(json::getString(u, "bitMap").value_or("null"));
      unit.eval = u.HasMember("eval") && u["eval"].IsBool() && u["eval"].GetBool();
      unit.msg = std::string(json::getString(u, "msg").value_or("null"));
      out.units.push_back(std::move(unit));
    }
  if (doc.HasMember("subscriptionData") && doc["subscriptionData"].IsObject())
    out.subscriptionJson = json::toString(doc["subscriptionData"]);
  if (auto f = json::getString(doc, "filterData")) out.filterData = std::string(*f);
  co_return out;
}

asio::awaitable<Result<void>> AdminClient::asyncCleanExpiredConsumeQueue(std::string brokerAddr) {
  co_return co_await callCode(std::move(brokerAddr), RequestCode::CLEAN_EXPIRED_CONSUMEQUEUE);
}

asio::awaitable<Result<void>> AdminClient::asyncCleanUnusedTopic(std::string brokerAddr) {
  co_return co_await callCode(std::move(brokerAddr), RequestCode::CLEAN_UNUSED_TOPIC);
}

asio::awaitable<Result<void>> AdminClient::asyncDeleteExpiredCommitLog(std::string brokerAddr) {
  co_return co_await callCode(std::move(brokerAddr), RequestCode::DELETE_EXPIRED_COMMITLOG);
}

asio::awaitable<Result<std::vector<SubscriptionGroupConfig>>> AdminClient::asyncSubscriptionGroups(
    std::string brokerAddr) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG);
  auto resp = co_await callOk(brokerAddr, std::move(cmd));
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  std::vector<SubscriptionGroupConfig> out;
  if (doc.IsObject() && doc.HasMember("subscriptionGroupTable") && doc["subscriptionGroupTable"].IsObject())
    for (auto& m : doc["subscriptionGroupTable"].GetObject())
      if (m.value.IsObject()) out.push_back(SubscriptionGroupConfig::fromJsonValue(m.value, json::keyView(m.name)));
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.groupName < b.groupName; });
  co_return out;
}

asio::awaitable<Result<std::vector<SubscriptionGroupConfig>>> AdminClient::asyncUserSubscriptionGroups(
    std::string brokerAddr) {
  auto groups = co_await asyncSubscriptionGroups(std::move(brokerAddr));
  if (!groups) co_return groups.error();
  std::erase_if(*groups, [](const SubscriptionGroupConfig& g) { return isSystemGroup(g.groupName); });
  co_return groups;
}

asio::awaitable<Result<std::vector<TopicConfigSpec>>> AdminClient::asyncUserTopicConfigs(std::string brokerAddr,
                                                                                         bool withRetryDlq) {
  auto all = net::RemotingCommand::request(RequestCode::GET_ALL_TOPIC_CONFIG);
  auto resp = co_await callOk(brokerAddr, std::move(all));
  if (!resp) co_return resp.error();
  auto system = net::RemotingCommand::request(RequestCode::GET_SYSTEM_TOPIC_LIST_FROM_BROKER);
  auto systemResp = co_await callOk(brokerAddr, std::move(system));
  if (!systemResp) co_return systemResp.error();
  auto systemTopics = parseTopicList(systemResp->body);
  if (!systemTopics) co_return systemTopics.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  std::vector<TopicConfigSpec> out;
  if (!doc.IsObject() || !doc.HasMember("topicConfigTable") || !doc["topicConfigTable"].IsObject()) co_return out;
  for (auto& m : doc["topicConfigTable"].GetObject()) {
    std::string name(json::keyView(m.name));
    bool special = name.rfind("%RETRY%", 0) == 0 || name.rfind("%DLQ%", 0) == 0;
    if (!m.value.IsObject() || (special && !withRetryDlq)) continue;
    if (std::find(systemTopics->begin(), systemTopics->end(), name) != systemTopics->end()) continue;
    out.push_back(parseTopicConfig(m.value, name));
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.topicName < b.topicName; });
  co_return out;
}

asio::awaitable<Result<std::optional<SubscriptionGroupConfig>>> AdminClient::asyncSubscriptionGroupConfig(
    std::string brokerAddr, std::string group) {
  auto groups = co_await asyncSubscriptionGroups(std::move(brokerAddr));
  if (!groups) co_return groups.error();
  std::optional<SubscriptionGroupConfig> out;
  for (auto& g : *groups)
    if (g.groupName == group) out = g;
  co_return out;
}

}  // namespace rmq::client
