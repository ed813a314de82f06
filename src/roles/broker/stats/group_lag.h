#pragma once
// Consumer lag of a group on this broker, queue by queue: broker offset (queue max offset) against
// the group's committed offset (0 when none, as Java's GET_CONSUME_STATS). Shared by
// GET_CONSUME_STATS / GET_BROKER_CONSUME_STATS and GET /metrics (rocketmq_group_diff); the lag of a
// queue is common/consumer_lag.h's queueLag, as on the client side.
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/consumer_lag.h"
#include "roles/broker/broker_context.h"

namespace rmq::broker {

struct QueueLag {
  std::string topic;
  int queueId = 0;
  int64_t brokerOffset = 0;
  int64_t consumerOffset = 0;
  int64_t diff() const { return queueLag(brokerOffset, consumerOffset); }  // clamped at 0
};

// Which queues of a topic a lag walks. Java 4.9.8 is not uniform: GET_CONSUME_STATS (what
// mqadmin consumerProgress and rocketmq-exporter read) walks the read queues,
// GET_BROKER_CONSUME_STATS (fetchAllConsumeStatsInBroker) the write queues.
enum class LagQueues { Read, Write };

// Each queue of each topic (topics unknown to the broker are skipped).
std::vector<QueueLag> groupLag(BrokerContext& ctx, const std::string& group, const std::set<std::string>& topics,
                               LagQueues which);

// Topics whose stats a group shows: the asked one, or every topic it committed offsets for —
// minus topics an online group does not subscribe to (Java's GET_CONSUME_STATS rule).
std::set<std::string> consumeStatsTopics(BrokerContext& ctx, const std::string& group, const std::string& topic);

}  // namespace rmq::broker
