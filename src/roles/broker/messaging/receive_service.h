#pragma once
// ReceiveMessage (server stream): a POP of the named group on this broker's queues of the topic,
// shaped as the 5.x proxy answers (ReceiveMessageActivity, research §2.2):
//   found:   status OK, one `message` per popped message, `delivery_timestamp` (now), end;
//   nothing: status MESSAGE_NOT_FOUND (the clients read it as an empty success), end;
//   POLLING_FULL -> TOO_MANY_REQUESTS; a refused pop -> its code (TOPIC_NOT_FOUND, ...).
// The request's queue names the broker; the pop takes every readable queue of the topic (queue id
// -1, the proxy's "broker acting queue"), also for FIFO groups (the pop holds per queue).
// Batch 1..32; invisible_duration 1 s..12 h (auto_renew: 60 s, renewed by ReceiptRenewer while the
// client's Telemetry lives); long_polling_timeout up to 20 s and never past the call's deadline
// (0.5 s kept for the answer). A parked receive is PopService's long poll; a cancelled call stops
// it. Popped messages the stream cannot take (call gone) are made visible again at once.
#include <asio/awaitable.hpp>
#include <string>

#include "apache/rocketmq/v2/service.pb.h"
#include "grpc/server_call.h"
#include "roles/broker/messaging/messaging_deps.h"
#include "roles/broker/messaging/receipt_renewer.h"
#include "roles/broker/messaging/v2_status.h"

namespace rmq::broker::messaging {

inline constexpr int64_t kAutoRenewInvisibleMs = 60000;  // the proxy's default invisible time
inline constexpr int64_t kMaxLongPollingMs = 20000;
inline constexpr int64_t kMaxInvisibleMs = 12LL * 3600 * 1000;  // the proxy's limit (receive, change invisible)

// The pop a request asks for, or the status refusing it. `now`/`deadline` bound the long poll.
struct ReceivePlan {
  pop::PopRequest pop;
  std::optional<v2::Status> refused;
};
ReceivePlan planReceive(const v2::ReceiveMessageRequest& req, std::string_view brokerName,
                        std::chrono::steady_clock::time_point now, std::chrono::steady_clock::time_point deadline);

// A pop error (pop_service.h codes) as the v2 status a consumer RPC answers.
v2::Status popErrorStatus(const Error& e);

class ReceiveService {
 public:
  ReceiveService(MessagingDeps& deps, ReceiptRenewer& renewer) : deps_(deps), renewer_(renewer) {}
  // Writes the whole stream and finishes the call.
  asio::awaitable<void> receive(grpc::ServerCallPtr call, std::string clientId, v2::ReceiveMessageRequest req);

 private:
  asio::awaitable<Result<pop::PopResult>> popCancellable(const grpc::ServerCallPtr& call, pop::PopRequest req);
  // Writes `r`'s messages; returns how many the stream took (the rest must be released).
  size_t writeMessages(grpc::ServerCall& call, const pop::PopResult& r);
  asio::awaitable<void> release(const pop::PopRequest& req, const pop::PopResult& r, size_t from);

  MessagingDeps& deps_;
  ReceiptRenewer& renewer_;
};

}  // namespace rmq::broker::messaging
