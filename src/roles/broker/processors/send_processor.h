#pragma once
// SendProcessor: SEND_MESSAGE (10), SEND_MESSAGE_V2 (310), SEND_BATCH_MESSAGE (320) — PROTOCOL.md
// §8.2. Checks, topic auto-creation, retry/DLQ redirection, record building (born host = peer,
// the properties string as Java 4.9.8 stores it: CLUSTER added, WAIT stripped from single
// messages and kept in batch headers, HashMap order — delivery/stored_message.h), append into the store, then co_await of the durability
// (SYNC_FLUSH group commit, SYNC_MASTER replication) without blocking the connection: other
// requests of the same connection run while a send waits.
// Threads: handle() runs on the connection's network thread; append() is a short critical
// section in the store; the durability wait completes on the same executor.
#include <asio/awaitable.hpp>
#include <chrono>
#include <optional>
#include <string>

#include "net/connection.h"
#include "roles/broker/broker_context.h"
#include "roles/broker/processors/fast_failure.h"
#include "roles/broker/processors/request_header.h"
#include "roles/broker/delivery/stored_message.h"

namespace rmq::broker {

struct TopicConfig;

// Every send-path answer carries MSG_REGION and TRACE_ON (the Java client reads them unchecked).
net::RemotingCommand sendResponse(const BrokerConfig& cfg, int code, std::optional<std::string> remark = std::nullopt);

// CONSUMER_SEND_MSG_BACK (36) once admitted (send_back_processor.cpp); its append runs on the
// store's append thread (appendInQueue, fast_failure.h).
asio::awaitable<std::optional<net::RemotingCommand>> consumerSendMsgBack(BrokerContext& ctx, net::RemotingCommand cmd);

class SendProcessor {
 public:
  explicit SendProcessor(BrokerContext& ctx) : ctx_(ctx), admission_(ctx.config, ctx.store) {}
  // Codes 10, 310, 320 and 36 (Java's send executor serves CONSUMER_SEND_MSG_BACK too: the same
  // fast failure).
  void registerTo(BrokerContext& ctx);
  asio::awaitable<std::optional<net::RemotingCommand>> handle(net::ConnectionPtr conn, net::RemotingCommand req);
  asio::awaitable<std::optional<net::RemotingCommand>> handleSendBack(net::RemotingCommand req);

  // Resolves topic, queue and retry/DLQ redirection; fills `target` or returns the error answer
  // (Java msgCheck; also used by the reply processor).
  struct Target {
    std::string topic;
    int32_t queueId = 0;
    int32_t sysFlag = 0;
  };
  std::optional<net::RemotingCommand> resolveTarget(const SendHeader& h, Target& target);

  // The put path shared by remoting SEND and the 5.x gRPC SendMessage (messaging/send_service.h):
  // writeability, resolveTarget, stored properties, half messages, append, durability wait,
  // failover fence. `body` must stay valid until the coroutine completes. A failure has `code`
  // != SUCCESS and an empty msgId; a durability timeout keeps the stored message's fields.
  // `receivedAt`: when the request was read (the send budget of the append queue counts from it).
  struct PutOutcome {
    int code = 0;
    std::string remark;
    std::string msgId;  // offset message id
    int32_t queueId = 0;
    int64_t queueOffset = 0;
    int64_t physicalOffset = 0;
  };
  asio::awaitable<PutOutcome> put(const SendHeader& h, std::string_view body, HostAddress born,
                                  std::chrono::steady_clock::time_point putStart,
                                  std::chrono::steady_clock::time_point receivedAt);

 private:
  std::optional<net::RemotingCommand> checkRetryTopic(const SendHeader& h, Target& target);
  asio::awaitable<int> awaitDurability(int64_t endOffset);
  // The append itself (single, batch or half message): runs on the store's append thread.
  store::AppendResult appendNow(const SendHeader& h, const Target& target, std::string_view body,
                                std::string_view props, std::optional<std::string_view> wait, HostAddress born,
                                bool half);
  std::string notWriteableReason() const;

  BrokerContext& ctx_;
  SendAdmission admission_;  // fast failure: busy answers instead of client timeouts (fast_failure.h)
};

}  // namespace rmq::broker
