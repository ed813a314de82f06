// Offset admin codes: INVOKE_BROKER_TO_RESET_OFFSET (pushes RESET_CONSUMER_CLIENT_OFFSET to the
// group's consumers, like Java's Broker2Client.resetOffset), INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
// CLONE_GROUP_OFFSET, QUERY_CORRECTION_OFFSET.
#include <limits>
#include <sstream>

#include "common/json.h"
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "store/message_store.h"

namespace rmq::broker {
using namespace admin;

namespace {

constexpr int32_t kMinClientVersionForReset = 101;  // MQVersion V3_0_7_SNAPSHOT

Reply resetOffset(BrokerContext& ctx, net::ConnectionPtr conn, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto group = requireString(cmd, "group");
  if (!group) co_return failure(group.error());
  auto timestamp = requireInt(cmd, "timestamp");
  if (!timestamp) co_return failure(timestamp.error());
  bool isForce = optBool(cmd, "isForce", false);
  log::info("reset offset of {} for {} to {} (force={}) requested by {}", *group, *topic, *timestamp,
            isForce, conn->remoteAddress());

  auto config = ctx.topics.find(*topic);
  if (!config) {
    co_return failure(ResponseCode::SYSTEM_ERROR, "[reset-offset] reset offset failed, no topic in this broker. topic=" + *topic);
  }
  json::Writer body;
  body.beginObject().key("offsetTable").beginObject();
  for (int q = 0; q < config->writeQueueNums; ++q) {
    int64_t consumerOffset = ctx.offsets.queryOffset(*group, *topic, q);
    if (consumerOffset == -1) {
      co_return failure(ResponseCode::SYSTEM_ERROR, "THe consumer group <" + *group + "> not exist");
    }
    int64_t target = *timestamp == -1 ? ctx.store.maxOffsetInQueue(*topic, q)
                                      : ctx.store.offsetInQueueByTime(*topic, q, *timestamp);
    if (target < 0) target = 0;
    int64_t chosen = (isForce || target < consumerOffset) ? target : consumerOffset;
    body.rawKey(mqJson(*topic, ctx.config.brokerName, q)).value(chosen);
  }
  body.endObject().endObject();
  std::string encoded = body.take();

  auto info = ctx.clients.consumerGroup(*group);
  if (!info || info->channels.empty()) {
    co_return failure(ResponseCode::CONSUMER_NOT_ONLINE,
                      "Consumer not online, so can not reset offset, Group: " + *group + " Topic: " + *topic +
                          " Timestamp: " + std::to_string(*timestamp));
  }
  for (auto& [_, ch] : info->channels) {
    if (ch.version < kMinClientVersionForReset) {
      co_return failure(ResponseCode::SYSTEM_ERROR,
                        "the client does not support this feature. version=" + std::to_string(ch.version));
    }
  }
  for (auto& [_, ch] : info->channels) {
    auto push = RemotingCommand::request(RequestCode::RESET_CONSUMER_CLIENT_OFFSET);
    push.extFields.set("topic", *topic);
    push.extFields.set("group", *group);
    push.extFields.set("timestamp", *timestamp);
    push.extFields.setBool("isForce", isForce);
    push.body = encoded;
    if (ch.conn) ch.conn->sendOneway(std::move(push));
  }
  co_return success(std::move(encoded));
}

// INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223): asks every consumer of the group (or the one at
// clientAddr) for its queue offsets (GET_CONSUMER_STATUS_FROM_CLIENT, 221) and gathers the
// answers as GetConsumerStatusBody {"consumerTable":{clientId:{mq:offset}},"messageQueueTable":{}}.
Reply consumerStatus(BrokerContext& ctx, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto group = requireString(cmd, "group");
  if (!group) co_return failure(group.error());
  std::string clientAddr = optString(cmd, "clientAddr");
  auto info = ctx.clients.consumerGroup(*group);
  if (!info || info->channels.empty()) {
    co_return failure(ResponseCode::SYSTEM_ERROR, "No Any Consumer online in the consumer group: [" + *group + "]");
  }
  json::Writer w;
  w.beginObject().key("consumerTable").beginObject();
  for (auto& [_, ch] : info->channels) {
    if (!ch.conn || (!clientAddr.empty() && ch.conn->remoteAddress() != clientAddr)) continue;
    auto ask = RemotingCommand::request(RequestCode::GET_CONSUMER_STATUS_FROM_CLIENT);
    ask.extFields.set("topic", *topic);
    ask.extFields.set("group", *group);
    auto r = co_await ch.conn->invoke(std::move(ask), std::chrono::milliseconds(5000));
    if (!r || r->code != ResponseCode::SUCCESS) {
      log::warn("consumer status from {} failed", ch.clientId);
      continue;
    }
    rapidjson::Document doc;
    if (!rmq::json::parse(r->body, doc) || !doc.IsObject()) continue;
    auto table = doc.FindMember("messageQueueTable");
    w.key(ch.clientId).beginObject();
    if (table != doc.MemberEnd() && table->value.IsObject()) {
      for (auto& m : table->value.GetObject()) {
        if (!m.value.IsInt64()) continue;
        w.rawKey(rmq::json::keyView(m.name)).value(m.value.GetInt64());
      }
    }
    w.endObject();
  }
  w.endObject().key("messageQueueTable").beginObject().endObject().endObject();
  co_return success(w.take());
}

Reply cloneGroupOffset(BrokerContext& ctx, RemotingCommand cmd) {
  auto src = requireString(cmd, "srcGroup");
  if (!src) co_return failure(src.error());
  auto dest = requireString(cmd, "destGroup");
  if (!dest) co_return failure(dest.error());
  std::string topic = optString(cmd, "topic");
  bool offline = optBool(cmd, "offline", false);
  std::set<std::string> topicSet;
  if (topic.empty()) {
    topicSet = ctx.offsets.topicsOfGroup(*src);
  } else {
    topicSet.insert(topic);
  }
  auto online = ctx.clients.consumerGroup(*src);
  for (auto& t : topicSet) {
    if (!ctx.topics.find(t)) continue;
    if (!offline && online && !online->subscriptions.empty() && !online->subscriptions.count(t)) continue;
    ctx.offsets.cloneOffset(*src, *dest, t);
  }
  log::info("cloned offsets of {} to {} ({} topics)", *src, *dest, topicSet.size());
  co_return success();
}

Reply queryCorrectionOffset(BrokerContext& ctx, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto compare = requireString(cmd, "compareGroup");
  if (!compare) co_return failure(compare.error());
  std::set<std::string> filtered;
  std::stringstream ss(optString(cmd, "filterGroups"));
  for (std::string g; std::getline(ss, g, ',');) filtered.insert(g);
  // Minimum committed offset per queue over every group of the topic except the filtered ones.
  QueueOffsets correction;
  for (auto& g : ctx.offsets.groupsOfTopic(*topic)) {
    if (filtered.count(g)) continue;
    for (auto& [q, o] : ctx.offsets.queryOffsets(g, *topic)) {
      auto it = correction.find(q);
      if (it == correction.end() || o < it->second) correction[q] = o;
    }
  }
  for (auto& [q, o] : ctx.offsets.queryOffsets(*compare, *topic)) {
    auto it = correction.find(q);
    if (it == correction.end()) continue;
    if (it->second > o) it->second = std::numeric_limits<int64_t>::max();
  }
  json::Writer w;
  w.beginObject().key("correctionOffsets").beginObject();
  for (auto& [q, o] : correction) w.intKey(q).value(o);
  w.endObject().endObject();
  co_return success(w.take());
}

}  // namespace

void registerOffsetAdminProcessors(BrokerContext& ctx) {
  BrokerContext* c = &ctx;
  ctx.registerProcessor(RequestCode::INVOKE_BROKER_TO_RESET_OFFSET,
                        [c](net::ConnectionPtr conn, RemotingCommand cmd) { return resetOffset(*c, conn, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return consumerStatus(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::CLONE_GROUP_OFFSET,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return cloneGroupOffset(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::QUERY_CORRECTION_OFFSET,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return queryCorrectionOffset(*c, std::move(cmd)); });
}

}  // namespace rmq::broker
