#pragma once
// Queue locks for orderly consumption (PROTOCOL.md §10.4; Java MQClientAPIImpl.lockBatchMQ /
// unlockBatchMQ): LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42) to the master of a broker group,
// body {"consumerGroup","clientId","mqSet":[{topic,brokerName,queueId}]}.
#include <asio/awaitable.hpp>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/types.h"
#include "common/result.h"

namespace rmq::client {

// The body of a lock/unlock request (exposed for unit tests).
std::string encodeLockBody(const std::string& group, const std::string& clientId, const std::vector<MessageQueue>& mqs);
// The queues of a LOCK_BATCH_MQ answer ({"lockOKMQSet":[...]}).
Result<std::vector<MessageQueue>> decodeLockedSet(std::string_view body);

// All of `mqs` must belong to `brokerName`. Returns the queues this client now holds.
asio::awaitable<Result<std::vector<MessageQueue>>> lockBatchMQ(ClientInstance& inst, const std::string& brokerName,
                                                               const std::string& group,
                                                               const std::vector<MessageQueue>& mqs);
// Oneway = false waits for the broker's answer (rebalance hand-over); errors are logged by callers.
asio::awaitable<Result<void>> unlockBatchMQ(ClientInstance& inst, const std::string& brokerName,
                                            const std::string& group, const std::vector<MessageQueue>& mqs);

}  // namespace rmq::client
