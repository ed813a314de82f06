#include "roles/broker/stats/group_lag.h"

#include <algorithm>

#include "roles/broker/clients/client_manager.h"
#include "roles/broker/metadata/consumer_offset_manager.h"
#include "roles/broker/metadata/topic_config_manager.h"
#include "store/message_store.h"

namespace rmq::broker {

std::vector<QueueLag> groupLag(BrokerContext& ctx, const std::string& group, const std::set<std::string>& topics,
                               LagQueues which) {
  std::vector<QueueLag> out;
  for (const auto& topic : topics) {
    auto config = ctx.topics.find(topic);
    if (!config) continue;
    int queues = which == LagQueues::Read ? config->readQueueNums : config->writeQueueNums;
    for (int q = 0; q < queues; ++q) {
      QueueLag lag;
      lag.topic = topic;
      lag.queueId = q;
      lag.brokerOffset = std::max<int64_t>(0, ctx.store.maxOffsetInQueue(topic, q));
      lag.consumerOffset = std::max<int64_t>(0, ctx.offsets.queryOffset(group, topic, q));
      out.push_back(std::move(lag));
    }
  }
  return out;
}

std::set<std::string> consumeStatsTopics(BrokerContext& ctx, const std::string& group, const std::string& topic) {
  std::set<std::string> candidates;
  if (topic.empty()) {
    candidates = ctx.offsets.topicsOfGroup(group);
  } else {
    candidates.insert(topic);
  }
  auto online = ctx.clients.consumerGroup(group);
  std::set<std::string> out;
  for (auto& t : candidates) {
    if (online && !online->subscriptions.empty() && !online->subscriptions.count(t)) continue;
    out.insert(t);
  }
  return out;
}

}  // namespace rmq::broker
