// AdminClient: one broker's views and maintenance requests (GET_BROKER_CONSUME_STATS,
// QUERY_CONSUME_QUEUE, CLEAN_EXPIRED_CONSUMEQUEUE, CLEAN_UNUSED_TOPIC, DELETE_EXPIRED_COMMITLOG,
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG), as DefaultMQAdminExtImpl makes them.
#include <algorithm>

#include "client/admin/admin_client.h"
#include "common/json.h"
#include "common/request_code.h"
#include "common/response_code.h"

namespace rmq::client {

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

asio::awaitable<Result<std::optional<SubscriptionGroupConfig>>> AdminClient::asyncSubscriptionGroupConfig(
    std::string brokerAddr, std::string group) {
  auto cmd = net::RemotingCommand::request(RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG);
  auto resp = co_await callOk(brokerAddr, std::move(cmd));
  if (!resp) co_return resp.error();
  rapidjson::Document doc;
  if (auto r = json::parse(resp->body, doc); !r) co_return r.error();
  std::optional<SubscriptionGroupConfig> out;
  if (doc.IsObject() && doc.HasMember("subscriptionGroupTable") && doc["subscriptionGroupTable"].IsObject()) {
    auto& table = doc["subscriptionGroupTable"];
    auto it = table.FindMember(rapidjson::StringRef(group.data(), group.size()));
    if (it != table.MemberEnd() && it->value.IsObject()) out = SubscriptionGroupConfig::fromJsonValue(it->value, group);
  }
  co_return out;
}

}  // namespace rmq::client
