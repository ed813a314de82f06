#pragma once
// PushConsumer (Java DefaultMQPushConsumer, concurrent or orderly listener): subscriptions, clustering
// rebalance (AllocateMessageQueueAveragely on start, every 20 s and on NOTIFY_CONSUMER_IDS_CHANGED)
// or broadcasting, long-poll pull loops, a consume thread pool, send-back on RECONSUME_LATER,
// offsets committed every 5 s and on shutdown.
// Threads: pull loops, rebalance and timers run on the ClientInstance io thread; the listener runs
// on consumeThreadMin threads. Lifecycle: subscribe/registerListener -> start() -> shutdown().
#include <asio/awaitable.hpp>
#include <asio/thread_pool.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/heartbeat.h"
#include "client/consumer/consumer_stats_manager.h"
#include "client/consumer/offset_store.h"
#include "client/consumer/process_queue.h"
#include "client/pull_api.h"
#include "client/types.h"
#include "common/message.h"
#include "filter/filter.h"

namespace rmq::client {

struct PushConsumerOptions {
  std::string group;
  ClientConfig client;
  MessageModel messageModel = MessageModel::CLUSTERING;
  ConsumeFromWhere consumeFromWhere = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  int64_t consumeTimestampMs = 0;  // CONSUME_FROM_TIMESTAMP; 0 = 30 minutes before start
  int consumeThreadMin = 20;
  int consumeThreadMax = 20;       // the pool has consumeThreadMin threads, like Java's executor
  int pullBatchSize = 32;
  int consumeMessageBatchMaxSize = 1;
  int pullThresholdForQueue = 1000;
  int consumeConcurrentlyMaxSpan = 2000;
  // -1 = Java's default: 16 for a concurrent listener, unlimited for an orderly one.
  int maxReconsumeTimes = -1;
  bool postSubscriptionWhenPull = true;  // send the expression in every pull (sysFlag bit 2)
  std::chrono::milliseconds persistConsumerOffsetInterval{5000};
  std::chrono::milliseconds rebalanceInterval{20000};
  std::chrono::milliseconds brokerSuspendMaxTime{15000};
  std::chrono::milliseconds consumerTimeoutWhenSuspend{30000};
  std::chrono::milliseconds pullTimeDelayWhenException{3000};
  std::chrono::milliseconds localRetryDelay{5000};
  // Orderly listener only (Java DefaultMQPushConsumer.suspendCurrentQueueTimeMillis).
  std::chrono::milliseconds suspendCurrentQueueTime{1000};
  std::chrono::milliseconds lockRenewInterval{20000};  // Java's lockAll period
  std::string offsetStoreDir;  // broadcasting; empty = $HOME/.rocketmq_offsets
};

// Concurrent listener: called with up to consumeMessageBatchMaxSize messages of one queue.
using MessageListener = std::function<ConsumeStatus(const std::vector<MessageExt>&, const MessageQueue&)>;

// Orderly listener (Java MessageListenerOrderly): one batch at a time per locked queue, in queue
// order. SUSPEND_CURRENT_QUEUE_A_MOMENT retries the same batch after suspendCurrentQueueTime.
enum class ConsumeOrderlyStatus { SUCCESS, SUSPEND_CURRENT_QUEUE_A_MOMENT };
using OrderlyListener = std::function<ConsumeOrderlyStatus(const std::vector<MessageExt>&, const MessageQueue&)>;

class PushConsumer {
 public:
  explicit PushConsumer(PushConsumerOptions options);
  ~PushConsumer();
  PushConsumer(const PushConsumer&) = delete;
  PushConsumer& operator=(const PushConsumer&) = delete;

  // Before start(). Errors: SQL92 parse errors (code 23).
  Result<void> subscribe(const std::string& topic, const std::string& expression,
                         filter::ExpressionType type = filter::ExpressionType::Tag);
  void registerListener(MessageListener listener) { listener_ = std::move(listener); }
  void registerListener(OrderlyListener listener) { orderlyListener_ = std::move(listener); }
  bool orderly() const { return static_cast<bool>(orderlyListener_); }
  // options.maxReconsumeTimes with -1 resolved as Java's getMaxReconsumeTimes() does per listener kind.
  int maxReconsumeTimes() const;
  Result<void> start();
  void shutdown();

  const PushConsumerOptions& options() const { return options_; }
  ClientInstance& instance() { return *instance_; }
  const std::string& clientId() const { return instance_->clientId(); }
  // Queues this member currently pulls (after the last rebalance).
  std::vector<MessageQueue> assignedQueues() const;
  // Runs a rebalance now and waits for it (tests, tools).
  void rebalanceNow();
  void persistOffsetsNow();

 private:
  struct Subscription {
    filter::Filter filter;
    SubscriptionData data;
  };
  struct QueueState {
    std::shared_ptr<ProcessQueue> pq;
  };

  std::string heartbeatBody() const;
  void registerServerRequests();
  asio::awaitable<void> rebalance();
  asio::awaitable<void> rebalanceTopic(const std::string& topic);
  asio::awaitable<void> updateQueues(const std::string& topic, const std::vector<MessageQueue>& mine);
  asio::awaitable<int64_t> computePullFromWhere(const MessageQueue& mq);
  asio::awaitable<void> pullLoop(MessageQueue mq, std::shared_ptr<ProcessQueue> pq, int64_t nextOffset);
  asio::awaitable<void> persistAll();
  static asio::awaitable<void> sleepFor(std::chrono::milliseconds d);  // on the caller's executor
  void submitConsume(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq, std::vector<MessageExt> msgs);
  void consume(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs);
  // Orderly path (orderly_consume.cpp).
  asio::awaitable<bool> lockQueue(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq);
  asio::awaitable<void> lockAll();
  asio::awaitable<void> unlockQueues(const std::vector<MessageQueue>& mqs);
  asio::awaitable<bool> waitListenerDone(const std::shared_ptr<ProcessQueue>& pq);
  void submitOrderly(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq, const std::vector<MessageExt>& msgs);
  void consumeOrderly(const MessageQueue& mq, const std::shared_ptr<ProcessQueue>& pq);
  void consumeOrderlyLater(const MessageQueue& mq, std::shared_ptr<ProcessQueue> pq, std::chrono::milliseconds delay,
                           bool relock);
  bool checkReconsumeTimes(const MessageQueue& mq, std::vector<MessageExt>& msgs);
  void resetOffsets(const std::string& topic, const std::map<MessageQueue, int64_t>& offsets);
  const Subscription* subscription(const std::string& topic) const;

  PushConsumerOptions options_;
  std::shared_ptr<ClientInstance> instance_;
  std::unique_ptr<OffsetStore> offsets_;
  ConsumerStatsManager stats_;  // pull/consume RT and TPS per topic (running info's statusTable)
  PullFromWhichNode pullNodes_;
  std::unique_ptr<asio::thread_pool> consumePool_;
  MessageListener listener_;
  OrderlyListener orderlyListener_;
  std::map<std::string, Subscription> subscriptions_;  // fixed after start()
  std::atomic<bool> running_{false};
  std::atomic<bool> rebalancing_{false};
  std::atomic<bool> rebalanceAgain_{false};
  std::atomic<int64_t> startTimestamp_{0};

  mutable std::mutex mu_;
  std::map<MessageQueue, QueueState> queues_;
};

}  // namespace rmq::client
