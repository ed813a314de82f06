#pragma once
// Request-reply (RocketMQ 4.6+, Java RequestFutureHolder / RequestResponseFuture /
// ClientRemotingProcessor.receiveReplyMessage / MessageUtil.createReplyMessage).
// - Producer::request* stamps CORRELATION_ID (a UUID), REPLY_TO_CLIENT (the producer's client id)
//   and TTL (the timeout in ms) on the request, registers a pending entry here, and sends the
//   message as a normal send.
// - A consumer answers with createReplyMessage(request, body) + Producer::send: the reply goes to
//   <cluster>_REPLY_TOPIC with MSG_TYPE=reply, which makes the producer use SEND_REPLY_MESSAGE_V2.
// - The broker pushes the reply with PUSH_REPLY_MESSAGE_TO_CLIENT to the requester's channel; the
//   table's handler completes the entry with the same CORRELATION_ID (ARRIVE_TIME added) and
//   answers SUCCESS (also for replies nobody waits for any more, as Java does).
// - Each entry has a deadline timer; expiry completes it with REQUEST_TIMEOUT_EXCEPTION (10006)
//   when the request was sent, otherwise with the send's error.
// Threads: all methods are thread-safe; completion callbacks run on the client's io thread
// (failAll's on the caller's thread). Producer::shutdown fails what is still pending; request()
// on a producer that is not running fails at once.
#include <asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/message.h"
#include "common/result.h"
#include "net/remoting_command.h"

namespace rmq::client {

class ClientInstance;

// Java ClientErrorCode values the request-reply API reports.
namespace client_error {
inline constexpr int REQUEST_TIMEOUT_EXCEPTION = 10006;
inline constexpr int CREATE_REPLY_MESSAGE_EXCEPTION = 10007;
}  // namespace client_error

using RequestCallback = std::function<void(Result<MessageExt>)>;

// Java MessageUtil.createReplyMessage: topic <CLUSTER>_REPLY_TOPIC, MSG_TYPE=reply and the
// request's CORRELATION_ID / REPLY_TO_CLIENT / TTL. Fails (10007) without a CLUSTER property
// (the broker adds it to every stored message).
Result<Message> createReplyMessage(const Message& request, std::string body);
// UUID v4 text (Java CorrelationIdUtil.createCorrelationId).
std::string createCorrelationId();
// True when an encoded properties string carries MSG_TYPE=reply (send with code 325).
bool isReplyProperties(std::string_view encodedProperties);
// PUSH_REPLY_MESSAGE_TO_CLIENT header + body -> the reply message (body inflated if compressed).
Result<MessageExt> decodePushedReply(const net::RemotingCommand& push);

class RequestFutureTable : public std::enable_shared_from_this<RequestFutureTable> {
 public:
  // Registers the PUSH_REPLY_MESSAGE_TO_CLIENT handler (before the instance connects).
  void attach(ClientInstance& instance);
  // Adds a pending request; `done` runs exactly once (reply, send failure or timeout).
  void add(ClientInstance& instance, const std::string& correlationId, const std::string& topic,
           std::chrono::milliseconds timeout, RequestCallback done);
  void markSent(const std::string& correlationId);
  // Completes with a send failure (no-op if already completed).
  void fail(const std::string& correlationId, Error error);
  // Completes with the reply; false when nobody waits for this correlation id.
  bool complete(MessageExt reply);
  // Completes every pending request with `error` (producer shutdown).
  void failAll(const Error& error);
  size_t pending() const;

 private:
  struct Entry {
    std::string topic;
    std::chrono::milliseconds timeout{0};
    bool sent = false;
    RequestCallback done;
    std::shared_ptr<asio::steady_timer> timer;
  };
  void expire(const std::string& correlationId);
  RequestCallback take(const std::string& correlationId, Entry* out = nullptr);

  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

}  // namespace rmq::client
