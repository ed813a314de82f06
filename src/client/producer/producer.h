#pragma once
// Producer (Java DefaultMQProducer): sync / async / oneway sends, queue selectors, batches,
// compression, retries on another broker and latency fault tolerance.
// Threads: the coroutine API runs on the producer's ClientInstance io thread(s); the blocking
// API may be called from any thread except those; callbacks run on the io thread.
// Lifecycle: construct -> start() -> send... -> shutdown() (also on destruction).
#include <asio/awaitable.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/producer/latency_fault.h"
#include "client/producer/request_reply.h"
#include "client/types.h"
#include "common/message.h"
#include "common/result.h"

namespace rmq::client {

struct ProducerOptions {
  std::string group = "DEFAULT_PRODUCER";
  ClientConfig client;
  std::chrono::milliseconds sendMsgTimeout{3000};
  size_t compressMsgBodyOverHowmuch = 4096;
  int compressLevel = 5;
  size_t maxMessageSize = 4 * 1024 * 1024;
  int retryTimesWhenSendFailed = 2;
  int retryTimesWhenSendAsyncFailed = 2;
  bool retryAnotherBrokerWhenNotStoreOK = false;
  // Broker answer codes retried on another broker besides Java's default set (Java 4.9.8
  // DefaultMQProducer.addRetryResponseCode). SYSTEM_BUSY (2), a broker's fast-failure answer, is
  // not retried by default, as in Java: add it to move to another broker at once.
  std::vector<int> addRetryResponseCodes;
  bool sendLatencyFaultEnable = false;
  int defaultTopicQueueNums = 4;
  std::string createTopicKey = "TBW102";
};

// Chooses a queue for a message; `arg` is the user's selector argument (e.g. an order id).
using MessageQueueSelector =
    std::function<MessageQueue(const std::vector<MessageQueue>&, const Message&, int64_t arg)>;
// queues[arg mod size] (the seeds' order-id selector; negative ids use |arg|).
MessageQueue selectByOrderId(const std::vector<MessageQueue>& queues, const Message&, int64_t orderId);

class Producer {
 public:
  explicit Producer(ProducerOptions options);
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  Result<void> start();
  void shutdown();
  const ProducerOptions& options() const { return options_; }
  ClientInstance& instance() { return *instance_; }

  // ---- coroutine API ----
  asio::awaitable<Result<SendResult>> asyncSend(Message msg);
  asio::awaitable<Result<SendResult>> asyncSend(Message msg, MessageQueue queue);  // no retry
  asio::awaitable<Result<SendResult>> asyncSend(Message msg, MessageQueueSelector selector, int64_t arg);
  asio::awaitable<Result<SendResult>> asyncSendBatch(std::vector<Message> msgs);
  asio::awaitable<Result<void>> asyncSendOneway(Message msg);
  asio::awaitable<Result<std::vector<MessageQueue>>> asyncFetchPublishQueues(std::string topic);

  // ---- blocking API ----
  Result<SendResult> send(Message msg);
  Result<SendResult> send(Message msg, MessageQueue queue);
  Result<SendResult> send(Message msg, MessageQueueSelector selector, int64_t arg);
  Result<SendResult> sendBatch(std::vector<Message> msgs);
  Result<void> sendOneway(Message msg);
  Result<std::vector<MessageQueue>> fetchPublishQueues(const std::string& topic);
  // Callback API (Java send(msg, SendCallback[, timeout])): returns at once; `done` runs on the io
  // thread with the result (after retries), also for every failure (Java's onException; nothing
  // throws). Counted against ClientConfig::clientAsyncSemaphoreValue: with every permit taken the
  // send waits for one up to its timeout, then retries with no time left and reports
  // CLIENT_TOO_MUCH_REQUEST ("invokeAsync call the addr[..] timeout" / "invokeAsyncImpl invoke
  // too fast"), as a Java callback gets RemotingTooMuchRequestException.
  void sendAsync(Message msg, std::function<void(Result<SendResult>)> done);
  void sendAsync(Message msg, std::function<void(Result<SendResult>)> done, std::chrono::milliseconds timeout);

  // ---- request-reply (request_reply.h; producer_request.cpp) ----
  // Sends `msg` with CORRELATION_ID / REPLY_TO_CLIENT / TTL and waits for the reply a consumer
  // sends with createReplyMessage; REQUEST_TIMEOUT_EXCEPTION (10006) after `timeout`.
  Result<MessageExt> request(Message msg, std::chrono::milliseconds timeout);  // blocking
  void requestAsync(Message msg, std::chrono::milliseconds timeout, RequestCallback done);
  // Coroutine form (any serialized executor, e.g. instance().io()): the reply, or the error requestAsync reports.
  asio::awaitable<Result<MessageExt>> asyncRequest(Message msg, std::chrono::milliseconds timeout);
  size_t pendingRequests() const { return requests_->pending(); }

 private:
  enum class Mode { Sync, Async, Oneway };
  struct Prepared;
  Result<Prepared> prepare(Message msg) const;
  Result<Prepared> prepareBatch(std::vector<Message> msgs) const;
  // `timeout` bounds all attempts together (sendMsgTimeout, or sendAsync's own).
  asio::awaitable<Result<SendResult>> sendWithRetries(Prepared p, Mode mode, std::chrono::milliseconds timeout);
  asio::awaitable<Result<SendResult>> prepareAndSend(Message msg, Mode mode);  // Sync or Async
  asio::awaitable<Result<SendResult>> sendTo(const Prepared& p, const MessageQueue& mq, Mode mode,
                                             std::chrono::milliseconds timeout);
  std::string heartbeatBody() const;
  asio::awaitable<void> sendRequest(Message msg, std::string correlationId);

  ProducerOptions options_;
  std::shared_ptr<ClientInstance> instance_;
  QueueSelector selector_;
  std::shared_ptr<RequestFutureTable> requests_ = std::make_shared<RequestFutureTable>();
};

}  // namespace rmq::client
