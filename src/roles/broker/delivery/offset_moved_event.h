#pragma once
// OFFSET_MOVED_EVENT: a master that answers PULL_OFFSET_MOVED (code 21) also stores an
// OffsetMovedEvent message (JSON body, tag = consumer group) in topic OFFSET_MOVED_EVENT queue 0,
// like Java's PullMessageProcessor.generateOffsetMovedEvent (PROTOCOL.md §8.3). Called on a
// network thread; CommitLog appends do not block.
#include <cstdint>
#include <string>

#include "roles/broker/broker_context.h"

namespace rmq::broker {

struct OffsetMovedEvent {
  std::string consumerGroup;
  std::string topic;
  int32_t queueId = 0;
  int64_t offsetRequest = 0;
  int64_t offsetNew = 0;
};

// The event's body as Java's RemotingSerializable encodes it (fastjson, sorted keys).
std::string encodeOffsetMovedEvent(const OffsetMovedEvent& e, const std::string& brokerName);
// Stores the event; failures are logged (the pull answer does not depend on them).
void storeOffsetMovedEvent(BrokerContext& ctx, const OffsetMovedEvent& e);

}  // namespace rmq::broker
