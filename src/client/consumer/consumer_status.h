#pragma once
// GET_CONSUMER_STATUS_FROM_CLIENT (221) on the consumer side (Java ClientRemotingProcessor
// .getConsumeStatus): the broker (INVOKE_BROKER_TO_GET_CONSUMER_STATUS, 223: mqadmin
// getConsumerStatus, resetOffset's status view) asks for this consumer's in-memory offsets of one
// topic; the answer is GetConsumerStatusBody {"messageQueueTable":{mq:offset},"consumerTable":{}}
// (an empty table when the request names another group).
#include <string>

#include "client/consumer/offset_store.h"
#include "net/dispatcher.h"

namespace rmq::client {

// `offsets` must outlive the dispatcher's use.
void registerConsumerStatus(net::Dispatcher& dispatcher, std::string group, const OffsetStore& offsets);

}  // namespace rmq::client
