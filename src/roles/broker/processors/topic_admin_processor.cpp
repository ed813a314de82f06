// Topic and subscription-group admin codes (PROTOCOL.md §2.2, §6.8, §7.5).
#include "common/log.h"
#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/delivery/schedule_message_service.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "store/message_store.h"

namespace rmq::broker {
using namespace admin;

namespace {

// Java's AdminBrokerProcessor.validateSlave: topics and groups change on the master only (the
// slave takes them from the master's metadata sync).
std::optional<RemotingCommand> refuseOnSlave(const BrokerContext& ctx) {
  if (!ctx.role.isSlave()) return std::nullopt;
  return failure(ResponseCode::SYSTEM_ERROR,
                 "Can't modify topic or subscription group from slave broker, please execute it from master broker.");
}

// RocketMQ 5.x AttributeParser: "+key=value" sets, "-key" removes, comma-separated. Only the
// attribute the 5.x clients need is taken: message.type (TopicMessageType's values). Returns the
// error text, "" when applied.
std::string applyTopicAttributes(std::string_view text, std::map<std::string, std::string>& attributes) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const char op = item.front();
    item.remove_prefix(1);
    size_t eq = item.find('=');
    std::string key(item.substr(0, eq));
    if (key != "message.type") return "unsupported attribute key: " + key;
    if (op == '-' && eq == std::string_view::npos) {
      attributes.erase(key);
      continue;
    }
    if (op != '+' || eq == std::string_view::npos) return "attribute format error: " + std::string(text);
    std::string value(item.substr(eq + 1));
    if (value != "NORMAL" && value != "FIFO" && value != "DELAY" && value != "TRANSACTION" && value != "MIXED")
      return "value is not in set: [NORMAL, FIFO, DELAY, TRANSACTION, MIXED] (message.type=" + value + ")";
    attributes[key] = std::move(value);
  }
  return {};
}

Result<TopicConfig> topicFromHeader(const RemotingCommand& cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) return topic.error();
  auto read = requireInt(cmd, "readQueueNums");
  if (!read) return read.error();
  auto write = requireInt(cmd, "writeQueueNums");
  if (!write) return write.error();
  auto p = requireInt(cmd, "perm");
  if (!p) return p.error();
  TopicConfig c;
  c.topicName = *topic;
  c.readQueueNums = static_cast<int32_t>(*read);
  c.writeQueueNums = static_cast<int32_t>(*write);
  c.perm = static_cast<int32_t>(*p);
  std::string filterType = optString(cmd, "topicFilterType", "SINGLE_TAG");
  if (!parseTopicFilterType(filterType, c.topicFilterType)) {
    return makeError(ResponseCode::SYSTEM_ERROR, "bad topicFilterType " + filterType);
  }
  c.topicSysFlag = static_cast<int32_t>(optInt(cmd, "topicSysFlag", 0));
  c.order = optBool(cmd, "order", false);
  if (c.readQueueNums < 0 || c.writeQueueNums < 0 || c.readQueueNums > 1024 * 64 || c.writeQueueNums > 1024 * 64) {
    return makeError(ResponseCode::SYSTEM_ERROR, "queue numbers out of range");
  }
  return c;
}

Reply updateAndCreateTopic(BrokerContext& ctx, net::ConnectionPtr conn, RemotingCommand cmd) {
  if (auto refused = refuseOnSlave(ctx)) co_return std::move(*refused);
  auto config = topicFromHeader(cmd);
  if (!config) co_return failure(config.error());
  // 5.x's "attributes" header ("+message.type=FIFO,-k"): applied over the topic's current ones.
  auto existing = ctx.topics.find(config->topicName);
  if (existing) config->attributes = existing->attributes;
  if (auto bad = applyTopicAttributes(optString(cmd, "attributes", ""), config->attributes); !bad.empty())
    co_return failure(ResponseCode::SYSTEM_ERROR, bad);
  std::string remark;
  if (!topics::isValidTopicName(config->topicName, &remark)) co_return failure(ResponseCode::SYSTEM_ERROR, remark);
  if (ctx.topics.isSystemTopic(config->topicName)) {
    co_return failure(ResponseCode::SYSTEM_ERROR,
                      "The topic[" + config->topicName + "] is conflict with system topic.");
  }
  log::info("updateAndCreateTopic {} from {}", config->topicName, conn->remoteAddress());
  ctx.topics.updateTopicConfig(*config);
  // Java's registerIncrementBrokerData: the answer comes after the name servers know the topic
  // (or registerBrokerTimeoutMills passed), so a route lookup right after the create finds it.
  // Only this topic travels: a full registration per creation made creating N topics O(N^2).
  co_await registerTopicWithNameServersNow(ctx, *config);
  co_return success();
}

Reply deleteTopic(BrokerContext& ctx, net::ConnectionPtr conn, RemotingCommand cmd) {
  if (auto refused = refuseOnSlave(ctx)) co_return std::move(*refused);
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  if (ctx.topics.isSystemTopic(*topic)) {
    co_return failure(ResponseCode::SYSTEM_ERROR, "The topic[" + *topic + "] is conflict with system topic.");
  }
  log::info("deleteTopic {} from {}", *topic, conn->remoteAddress());
  ctx.topics.deleteTopicConfig(*topic);
  ctx.offsets.removeTopic(*topic);
  postBackground(ctx, [&ctx, t = *topic] { ctx.store.deleteTopics({t}); });  // unlinks files
  if (ctx.registerBrokerAllSoon) ctx.registerBrokerAllSoon();
  co_return success();
}

Reply systemTopicList(BrokerContext& ctx) {
  auto names = ctx.topics.systemTopicNames();
  for (auto t : {topics::AUTO_CREATE_TOPIC_KEY, topics::SCHEDULE_TOPIC, topics::BENCHMARK_TOPIC,
                 topics::TRANS_HALF_TOPIC, topics::TRANS_OP_HALF_TOPIC, topics::TRANS_CHECK_MAX_TIME_TOPIC,
                 topics::TRACE_TOPIC, topics::SELF_TEST_TOPIC, topics::OFFSET_MOVED_EVENT}) {
    names.emplace(t);
  }
  json::Writer w;
  w.beginObject().key("topicList").beginArray();
  for (auto& n : names) w.value(n);
  w.endArray().endObject();
  co_return success(w.take());
}

Reply updateGroup(BrokerContext& ctx, net::ConnectionPtr conn, RemotingCommand cmd) {
  if (auto refused = refuseOnSlave(ctx)) co_return std::move(*refused);
  auto g = SubscriptionGroupConfig::fromJson(cmd.body);
  if (!g) co_return failure(ResponseCode::SYSTEM_ERROR, "bad SubscriptionGroupConfig body: " + g.error().message);
  log::info("updateAndCreateSubscriptionGroup {} from {}", g->groupName, conn->remoteAddress());
  ctx.groups.update(*g);
  co_return success();
}

Reply deleteGroup(BrokerContext& ctx, net::ConnectionPtr conn, RemotingCommand cmd) {
  if (auto refused = refuseOnSlave(ctx)) co_return std::move(*refused);
  auto group = requireString(cmd, "groupName");
  if (!group) co_return failure(group.error());
  bool removeOffset = optBool(cmd, "removeOffset", false);
  log::info("deleteSubscriptionGroup {} (removeOffset={}) from {}", *group, removeOffset, conn->remoteAddress());
  ctx.groups.remove(*group);
  if (removeOffset) ctx.offsets.removeGroup(*group);
  co_return success();
}

Reply allTopicConfig(BrokerContext& ctx) { co_return success(ctx.topics.encode()); }
Reply allGroupConfig(BrokerContext& ctx) { co_return success(ctx.groups.encode()); }
Reply allConsumerOffsets(BrokerContext& ctx) { co_return success(ctx.offsets.encode()); }

Reply allDelayOffsets(BrokerContext& ctx) {
  if (!ctx.schedule) co_return failure(ResponseCode::SYSTEM_ERROR, "No delay offset in this broker");
  co_return success(ctx.schedule->encode());
}

}  // namespace

void registerTopicAdminProcessors(BrokerContext& ctx) {
  BrokerContext* c = &ctx;
  persistManagersInBackground(ctx);
  ctx.registerProcessor(RequestCode::UPDATE_AND_CREATE_TOPIC,
                        [c](net::ConnectionPtr conn, RemotingCommand cmd) { return updateAndCreateTopic(*c, conn, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::DELETE_TOPIC_IN_BROKER,
                        [c](net::ConnectionPtr conn, RemotingCommand cmd) { return deleteTopic(*c, conn, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_ALL_TOPIC_CONFIG, [c](net::ConnectionPtr, RemotingCommand) { return allTopicConfig(*c); });
  ctx.registerProcessor(RequestCode::GET_SYSTEM_TOPIC_LIST_FROM_BROKER,
                        [c](net::ConnectionPtr, RemotingCommand) { return systemTopicList(*c); });
  ctx.registerProcessor(RequestCode::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
                        [c](net::ConnectionPtr conn, RemotingCommand cmd) { return updateGroup(*c, conn, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::DELETE_SUBSCRIPTIONGROUP,
                        [c](net::ConnectionPtr conn, RemotingCommand cmd) { return deleteGroup(*c, conn, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, [c](net::ConnectionPtr, RemotingCommand) { return allGroupConfig(*c); });
  ctx.registerProcessor(RequestCode::GET_ALL_CONSUMER_OFFSET, [c](net::ConnectionPtr, RemotingCommand) { return allConsumerOffsets(*c); });
  ctx.registerProcessor(RequestCode::GET_ALL_DELAY_OFFSET,
                        [c](net::ConnectionPtr, RemotingCommand) { return allDelayOffsets(*c); });
}

}  // namespace rmq::broker
