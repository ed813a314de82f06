// Statistics for mqadmin / the dashboard: GET_BROKER_RUNTIME_INFO, GET_TOPIC_STATS_INFO,
// GET_CONSUME_STATS, GET_BROKER_CONSUME_STATS, QUERY_CONSUME_TIME_SPAN, QUERY_TOPIC_CONSUME_BY_WHO,
// VIEW_BROKER_STATS_DATA.
#include <set>

#include <fmt/format.h>

#include "common/request_code.h"
#include "common/response_code.h"
#include "roles/broker/processors/admin_processors.h"
#include "roles/broker/processors/admin_support.h"
#include "roles/broker/stats/broker_runtime_info.h"
#include "roles/broker/stats/broker_stats.h"
#include "roles/broker/metadata/subscription_group_manager.h"
#include "roles/broker/stats/group_lag.h"
#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/json_text.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "roles/broker/pop/pop_service.h"
#include "store/message_store.h"

namespace rmq::broker {
using namespace admin;

namespace {

Reply topicStats(BrokerContext& ctx, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto config = ctx.topics.find(*topic);
  if (!config) co_return failure(ResponseCode::TOPIC_NOT_EXIST, "topic[" + *topic + "] not exist");
  json::Writer w;
  w.beginObject().key("offsetTable").beginObject();
  for (int q = 0; q < config->writeQueueNums; ++q) {
    int64_t min = std::max<int64_t>(0, ctx.store.minOffsetInQueue(*topic, q));
    int64_t max = std::max<int64_t>(0, ctx.store.maxOffsetInQueue(*topic, q));
    int64_t last = max > 0 ? ctx.store.messageStoreTime(*topic, q, max - 1) : 0;
    w.rawKey(mqJson(*topic, ctx.config.brokerName, q));
    w.beginObject().key("lastUpdateTimestamp").value(std::max<int64_t>(last, 0))
        .key("maxOffset").value(max).key("minOffset").value(min).endObject();
  }
  w.endObject().endObject();
  co_return success(w.take());
}

// A POP group's queue (5.x consumers): 5.x's OffsetWrapper.pullOffset (the next offset never
// popped) and our own popInFlight / popDue / popDeadLettered (Java's fastjson ignores fields it
// does not know). Nothing for a queue the group never popped.
void writePopFigures(BrokerContext& ctx, json::Writer& w, const pop::QueueKey& key) {
  if (!ctx.pop) return;
  auto f = ctx.pop->figures(key);
  if (!f) return;
  w.key("pullOffset").value(f->nextOffset).key("popInFlight").value(static_cast<int64_t>(f->inFlight))
      .key("popDue").value(static_cast<int64_t>(f->due)).key("popDeadLettered").value(static_cast<int64_t>(f->deadLettered));
}

// One ConsumeStats object for (group, topics); returns Java's ConsumeStats.computeTotalDiff(): the
// sum of brokerOffset - consumerOffset, negative for a committed offset past a queue's end (the
// per-queue lag shown elsewhere, common/consumer_lag.h, is clamped at 0).
int64_t writeConsumeStats(BrokerContext& ctx, json::Writer& w, const std::string& group,
                          const std::set<std::string>& topicSet, LagQueues which) {
  int64_t diff = 0;
  double tps = 0;
  for (auto& topic : topicSet) tps += getStats().groupTps(group, topic);
  w.beginObject().key("consumeTps").value(tps).key("offsetTable").beginObject();
  for (const auto& lag : groupLag(ctx, group, topicSet, which)) {
    int64_t last = lag.consumerOffset > 0 ? ctx.store.messageStoreTime(lag.topic, lag.queueId, lag.consumerOffset - 1) : 0;
    diff += lag.brokerOffset - lag.consumerOffset;
    w.rawKey(mqJson(lag.topic, ctx.config.brokerName, lag.queueId));
    w.beginObject().key("brokerOffset").value(lag.brokerOffset).key("consumerOffset").value(lag.consumerOffset)
        .key("lastTimestamp").value(std::max<int64_t>(last, 0));
    writePopFigures(ctx, w, {group, lag.topic, lag.queueId});
    w.endObject();
  }
  w.endObject().endObject();
  return diff;
}

Reply consumeStats(BrokerContext& ctx, RemotingCommand cmd) {
  auto group = requireString(cmd, "consumerGroup");
  if (!group) co_return failure(group.error());
  json::Writer w;
  writeConsumeStats(ctx, w, *group, consumeStatsTopics(ctx, *group, optString(cmd, "topic")), LagQueues::Read);
  co_return success(w.take());
}

// Java 4.9.8 fetchAllConsumeStatsInBroker: every subscription group (online or not) with one entry,
// holding a ConsumeStats per topic it committed offsets for (minus topics an online group does not
// subscribe to; with isOrder only ordered topics); totalDiff sums the raw differences.
Reply brokerConsumeStats(BrokerContext& ctx, RemotingCommand cmd) {
  bool isOrder = optBool(cmd, "isOrder", false);
  int64_t totalDiff = 0;
  json::Writer w;
  w.beginObject().key("brokerAddr").value(ctx.config.brokerAddr()).key("consumeStatsList").beginArray();
  for (const auto& groupConfig : ctx.groups.all()) {
    const std::string& group = groupConfig.groupName;
    w.beginObject().key(group).beginArray();
    for (auto& topic : consumeStatsTopics(ctx, group, "")) {
      auto config = ctx.topics.find(topic);
      if (!config || (isOrder && !config->order)) continue;
      totalDiff += writeConsumeStats(ctx, w, group, {topic}, LagQueues::Write);
    }
    w.endArray().endObject();
  }
  w.endArray().key("totalDiff").value(totalDiff).endObject();
  co_return success(w.take());
}

void writeMessageQueue(json::Writer& w, std::string_view topic, std::string_view broker, int q) {
  w.beginObject().key("brokerName").value(broker).key("queueId").value(q).key("topic").value(topic).endObject();
}

Reply consumeTimeSpan(BrokerContext& ctx, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  auto group = requireString(cmd, "group");
  if (!group) co_return failure(group.error());
  auto config = ctx.topics.find(*topic);
  if (!config) co_return failure(ResponseCode::TOPIC_NOT_EXIST, "topic[" + *topic + "] not exist");
  json::Writer w;
  w.beginObject().key("consumeTimeSpanSet").beginArray();
  for (int q = 0; q < config->writeQueueNums; ++q) {
    int64_t minTime = std::max<int64_t>(0, ctx.store.earliestMessageTime(*topic, q));
    int64_t max = ctx.store.maxOffsetInQueue(*topic, q);
    int64_t maxTime = max > 0 ? std::max<int64_t>(0, ctx.store.messageStoreTime(*topic, q, max - 1)) : 0;
    int64_t consumerOffset = ctx.offsets.queryOffset(*group, *topic, q);
    int64_t consumeTime = consumerOffset > 0 ? ctx.store.messageStoreTime(*topic, q, consumerOffset - 1) : minTime;
    int64_t delay = 0;
    if (consumerOffset >= 0 && consumerOffset < max) {
      int64_t nextTime = ctx.store.messageStoreTime(*topic, q, consumerOffset);
      if (nextTime > 0) delay = nowMillis() - nextTime;
    }
    w.beginObject()
        .key("consumeTimeStamp").value(consumeTime).key("consumeTimeStampStr").value(humanTime(consumeTime))
        .key("delayTime").value(delay)
        .key("maxTimeStamp").value(maxTime).key("maxTimeStampStr").value(humanTime(maxTime))
        .key("messageQueue");
    writeMessageQueue(w, *topic, ctx.config.brokerName, q);
    w.key("minTimeStamp").value(minTime).key("minTimeStampStr").value(humanTime(minTime)).endObject();
  }
  w.endArray().endObject();
  co_return success(w.take());
}

Reply topicConsumeByWho(BrokerContext& ctx, RemotingCommand cmd) {
  auto topic = requireString(cmd, "topic");
  if (!topic) co_return failure(topic.error());
  std::set<std::string> groups = ctx.offsets.groupsOfTopic(*topic);
  for (auto& g : ctx.clients.consumerGroupsOfTopic(*topic)) groups.insert(g);
  json::Writer w;
  w.beginObject().key("groupList").beginArray();
  for (auto& g : groups) w.value(g);
  w.endArray().endObject();
  co_return success(w.take());
}

void writeStatsItem(json::Writer& w, const StatsFigures& f) {
  w.beginObject().key("avgpt").value(f.avgpt).key("sum").value(f.sum).key("tps").value(f.tps).endObject();
}

// Java's AdminBrokerProcessor.ViewBrokerStatsData: BrokerStatsData (fastjson: sorted keys), or
// SYSTEM_ERROR "The stats <name> <key> not exist" for an unknown name as for an unknown key.
Reply viewBrokerStatsData(BrokerContext& ctx, RemotingCommand cmd) {
  auto name = requireString(cmd, "statsName");
  if (!name) co_return failure(name.error());
  auto key = requireString(cmd, "statsKey");
  if (!key) co_return failure(key.error());
  auto item = brokerStatsItem(*name, *key, ctx.config.brokerClusterName);
  if (!item) co_return failure(ResponseCode::SYSTEM_ERROR, fmt::format("The stats <{}> <{}> not exist", *name, *key));
  json::Writer w;
  w.beginObject().key("statsDay");
  writeStatsItem(w, item->day);
  w.key("statsHour");
  writeStatsItem(w, item->hour);
  w.key("statsMinute");
  writeStatsItem(w, item->minute);
  w.endObject();
  co_return success(w.take());
}

Reply runtimeInfo(BrokerContext& ctx, std::shared_ptr<PutStatsSampler> sampler) {
  co_return success(encodeRuntimeInfo(ctx, sampler.get()));
}

}  // namespace

void registerStatsProcessors(BrokerContext& ctx) {
  BrokerContext* c = &ctx;
  auto sampler = startPutStatsSampler(ctx);
  ctx.registerProcessor(RequestCode::GET_BROKER_RUNTIME_INFO,
                        [c, sampler](net::ConnectionPtr, RemotingCommand) { return runtimeInfo(*c, sampler); });
  ctx.registerProcessor(RequestCode::GET_TOPIC_STATS_INFO,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return topicStats(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_CONSUME_STATS,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return consumeStats(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::GET_BROKER_CONSUME_STATS,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return brokerConsumeStats(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::QUERY_CONSUME_TIME_SPAN,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return consumeTimeSpan(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::QUERY_TOPIC_CONSUME_BY_WHO,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return topicConsumeByWho(*c, std::move(cmd)); });
  ctx.registerProcessor(RequestCode::VIEW_BROKER_STATS_DATA,
                        [c](net::ConnectionPtr, RemotingCommand cmd) { return viewBrokerStatsData(*c, std::move(cmd)); });
}

}  // namespace rmq::broker
