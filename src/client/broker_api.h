#pragma once
// Broker calls shared by both consumers and the admin client: offsets, pulls, consumer lists,
// send-back. All are coroutines on the ClientInstance io thread; the broker address comes from
// the route cache (refreshed once from the name server when the broker is unknown).
#include <asio/awaitable.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/request_headers.h"
#include "client/types.h"
#include "common/message.h"
#include "common/result.h"
#include "filter/filter.h"

namespace rmq::client {

// Where consumer offsets and queue offsets are read and written: the master; when the route has
// none (after one refresh), whichever node of that broker name is left, i.e. a slave. For consumer
// offsets this is Java's RemoteBrokerOffsetStore. For queue offsets (max/min/search/earliest) Java's
// MQAdminImpl asks the master only and fails with "The broker[..] not exist" while it is down; we
// ask the slave, which answers them from its replica, so pull consumers and rmqadmin keep reading.
asio::awaitable<Result<std::string>> findOffsetBrokerAddr(ClientInstance& inst, const MessageQueue& mq);

// QUERY_CONSUMER_OFFSET: the stored offset, or -1 when the broker has none (any non-zero code).
asio::awaitable<Result<int64_t>> queryConsumerOffset(ClientInstance& inst, const std::string& group, const MessageQueue& mq);
asio::awaitable<Result<void>> updateConsumerOffset(ClientInstance& inst, const std::string& group, const MessageQueue& mq,
                                                   int64_t offset, bool oneway);
// GET_MAX_OFFSET / GET_MIN_OFFSET / GET_EARLIEST_MSG_STORETIME / SEARCH_OFFSET_BY_TIMESTAMP.
asio::awaitable<Result<int64_t>> queueOffsetQuery(ClientInstance& inst, int code, const MessageQueue& mq);
asio::awaitable<Result<int64_t>> searchOffset(ClientInstance& inst, const MessageQueue& mq, int64_t timestampMs);
// GET_CONSUMER_LIST_BY_GROUP on one broker hosting `topic`.
asio::awaitable<Result<std::vector<std::string>>> consumerIdList(ClientInstance& inst, const std::string& group,
                                                                 const std::string& topic);
// CONSUMER_SEND_MSG_BACK to the broker the message came from.
asio::awaitable<Result<void>> sendMessageBack(ClientInstance& inst, const std::string& group, const MessageExt& msg,
                                              const std::string& brokerName, int delayLevel, int maxReconsumeTimes);

// PULL_MESSAGE and its response mapping (codes 0/19/20/21 -> FOUND/NO_NEW_MSG/NO_MATCHED_MSG/
// OFFSET_ILLEGAL; anything else is an Error). Messages are decoded (bodies inflated), filtered
// again by `recheck` (client-side tag re-check) and get MIN_OFFSET/MAX_OFFSET properties.
// `mode`: Async for the push consumer's pulls (Java pullMessageAsync takes an async permit).
asio::awaitable<Result<PullResult>> pullMessage(ClientInstance& inst, const std::string& addr, PullMessageHeader header,
                                                std::chrono::milliseconds timeout, const filter::Filter* recheck,
                                                InvokeMode mode = InvokeMode::Sync);
// Maps a PULL_MESSAGE response (exposed for unit tests).
Result<PullResult> processPullResponse(const net::RemotingCommand& resp, const filter::Filter* recheck);

}  // namespace rmq::client
