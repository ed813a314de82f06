#pragma once
// PullConsumer (Java DefaultMQPullConsumer): the caller chooses queues and offsets.
// pull() answers at once; pullBlockIfNotFound() lets the broker hold the request (long poll)
// until a message arrives or brokerSuspendMaxTime passes. Offsets are read/updated on the broker.
// Like Java's DefaultMQPullConsumer it answers the broker's GET_CONSUMER_RUNNING_INFO (properties,
// CONSUME_ACTIVELY), GET_CONSUMER_STATUS_FROM_CLIENT (the offsets given to updateConsumeOffset or
// read by fetchConsumeOffset, kept in memory) and refuses CONSUME_MESSAGE_DIRECTLY (SYSTEM_ERROR:
// nothing consumes passively).
// Threads: coroutine API on the ClientInstance io thread; blocking API from any other thread.
#include <asio/awaitable.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/consumer/offset_store.h"
#include "client/pull_api.h"
#include "client/types.h"
#include "common/result.h"
#include "filter/filter.h"

namespace rmq::client {

struct PullConsumerOptions {
  std::string group;
  ClientConfig client;
  MessageModel messageModel = MessageModel::CLUSTERING;
  std::chrono::milliseconds brokerSuspendMaxTime{20000};
  std::chrono::milliseconds consumerTimeoutWhenSuspend{30000};
  std::chrono::milliseconds consumerPullTimeout{10000};
};

class PullConsumer {
 public:
  explicit PullConsumer(PullConsumerOptions options);
  ~PullConsumer();
  PullConsumer(const PullConsumer&) = delete;
  PullConsumer& operator=(const PullConsumer&) = delete;

  Result<void> start();
  void shutdown();
  ClientInstance& instance() { return *instance_; }
  const std::string& clientId() const { return instance_->clientId(); }

  // ---- coroutine API ----
  asio::awaitable<Result<std::vector<MessageQueue>>> asyncFetchSubscribeMessageQueues(std::string topic);
  // expression: tag expression ("*", "A || B") unless type is Sql92.
  asio::awaitable<Result<PullResult>> asyncPull(MessageQueue mq, std::string expression, int64_t offset, int maxNums,
                                                filter::ExpressionType type = filter::ExpressionType::Tag);
  asio::awaitable<Result<PullResult>> asyncPullBlockIfNotFound(MessageQueue mq, std::string expression, int64_t offset,
                                                               int maxNums);
  asio::awaitable<Result<int64_t>> asyncFetchConsumeOffset(MessageQueue mq);  // -1 when none stored
  asio::awaitable<Result<void>> asyncUpdateConsumeOffset(MessageQueue mq, int64_t offset);
  asio::awaitable<Result<int64_t>> asyncMaxOffset(MessageQueue mq);
  asio::awaitable<Result<int64_t>> asyncMinOffset(MessageQueue mq);
  asio::awaitable<Result<int64_t>> asyncSearchOffset(MessageQueue mq, int64_t timestampMs);

  // ---- blocking API ----
  Result<std::vector<MessageQueue>> fetchSubscribeMessageQueues(const std::string& topic);
  Result<PullResult> pull(const MessageQueue& mq, const std::string& expression, int64_t offset, int maxNums,
                          filter::ExpressionType type = filter::ExpressionType::Tag);
  Result<PullResult> pullBlockIfNotFound(const MessageQueue& mq, const std::string& expression, int64_t offset,
                                         int maxNums);
  Result<int64_t> fetchConsumeOffset(const MessageQueue& mq);
  Result<void> updateConsumeOffset(const MessageQueue& mq, int64_t offset);
  Result<int64_t> maxOffset(const MessageQueue& mq);
  Result<int64_t> minOffset(const MessageQueue& mq);
  Result<int64_t> searchOffset(const MessageQueue& mq, int64_t timestampMs);

 private:
  asio::awaitable<Result<PullResult>> pullImpl(MessageQueue mq, std::string expression, filter::ExpressionType type,
                                               int64_t offset, int maxNums, bool block);
  std::string heartbeatBody() const;
  void registerServerRequests();

  PullConsumerOptions options_;
  std::shared_ptr<ClientInstance> instance_;
  PullFromWhichNode pullNodes_;
  std::unique_ptr<RemoteOffsetStore> offsets_;  // in-memory view answered to GET_CONSUMER_STATUS_FROM_CLIENT
  int64_t startTimestamp_ = 0;
};

}  // namespace rmq::client
